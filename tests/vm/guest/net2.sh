# Two VMs: ping and a TCP transfer over the emulated UDP link, md5-checked.
# vms: 2
# disks: none
# timeout: 120
# mem: 512
P=$(peer_ip)
wait_for "ping -c1 -W1 $P" 60 || fail "no ping reply from $P within 60s"
check ping-5 ping -c 5 -i 0.2 -W 2 "$P"
log "$(tail -1 /tmp/nm_check_out)"
# a -> b: 4 MiB random data, node b checksums what it received
check_eq on_peer-reaches-b "$(on_peer hostname)" b
$DD if=/dev/urandom of=/tmp/blob bs=1M count=4 status=none
want=$($MD5SUM < /tmp/blob | cut -d' ' -f1)
# busybox nc ends the connection when its stdin reaches EOF: hold it open
on_peer "sleep 60 | nc -l -p 5001 > /tmp/rx 2>/dev/null &" || fail "cannot start nc listener on b"
wait_for "on_peer 'netstat -ltn | grep -q :5001'" 20 || fail "listener on b did not come up"
t0=$(cut -d' ' -f1 /proc/uptime)
nc -w 10 "$P" 5001 < /tmp/blob || fail "nc send to b failed"
check_wait a-to-b-size 30 "on_peer '[ \$(stat -c %s /tmp/rx) = 4194304 ] && ! netstat -ltn | grep -q :5001'"
t1=$(cut -d' ' -f1 /proc/uptime)
got=$(on_peer "$MD5SUM < /tmp/rx | cut -d' ' -f1")
check_eq a-to-b-md5 "$got" "$want"
log "a->b 4 MiB in $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}')s, md5 ok"
# b -> a: node b sends 2 MiB back, a checks against b's checksum
want=$(on_peer "$DD if=/dev/urandom of=/tmp/blob2 bs=1M count=2 status=none && $MD5SUM < /tmp/blob2 | cut -d' ' -f1")
sleep 60 | nc -l -p 5002 > /tmp/rx2 &
ncpid=$!
wait_for "netstat -ltn | grep -q :5002" 10 || fail "local listener did not come up"
on_peer "nc -w 10 $(my_ip) 5002 < /tmp/blob2" || fail "nc send from b failed"
check_wait b-to-a-size 30 "[ \$($STAT -c %s /tmp/rx2) = 2097152 ]"
kill $ncpid 2>/dev/null
got=$($MD5SUM < /tmp/rx2 | cut -d' ' -f1)
check_eq b-to-a-md5 "$got" "$want"
# exit status and stderr come back through on_peer
on_peer 'echo oops >&2; exit 7' 2>/tmp/err
check_eq on_peer-exit-status $? 7
check on_peer-stderr grep -qx oops /tmp/err
log "net2 ok"
exit 0
