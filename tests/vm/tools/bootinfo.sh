# Prints kernel boot milestones (initramfs unpack, /init start) for testbed
# tuning; always passes.
# vms: 1
# disks: none
# timeout: 60
dmesg | grep -E 'Trying to unpack|Freeing initrd|Run /init' | sed 's/^/NMLOG: /'
exit 0
