# Two-node demo (make demo / tests/vm/demo.sh): node a drives, node b is the
# peer.  Placeholder until the netmirror demo is written: loads the module if
# it was built and shows the device-mapper targets on both nodes.
# vms: 2
# disks: 1x128M
# timeout: 300
echo "DEMO: node a $(my_ip), node b $(peer_ip)"
on_peer 'hostname' >/dev/null || fail "node b does not answer"
if nm_find_module >/dev/null; then
	( load_netmirror ) || fail "cannot load dm-netmirror on node a"
	on_peer '. /tests/lib.sh; load_netmirror' || fail "cannot load dm-netmirror on node b"
	echo "DEMO: dm-netmirror loaded on both nodes"
else
	modprobe dm-mod
	on_peer 'modprobe dm-mod'
	echo "DEMO: dm-netmirror.ko not built (make module); showing stock targets"
fi
echo "DEMO: dmsetup targets on node a:"
dmsetup targets | sed 's/^/DEMO:   /'
echo "DEMO: dmsetup targets on node b:"
on_peer 'dmsetup targets' | sed 's/^/DEMO:   /'
exit 0
