# Issue 10, defect 2 without a metadata device: dur-reload's cases
# pri-conn, pri-disc and sec-disc with both nodes on "sync none" and no
# meta (a reload must not lose the writes missed while the peer was away,
# even with "sync none").  Checks <P>/nometa/<case>.
# vms: 1
# disks: none
# timeout: 300
# mem: 1024
dur_meta=no
. /tests/dur-reload.sh
