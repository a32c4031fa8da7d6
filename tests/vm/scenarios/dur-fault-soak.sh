#!/bin/bash
# Scenario: the durability fault soak of issue 10 (first test bullet).  For
# each protocol of NM_PROTOS (default "A B C") a fresh pair of VMs: node a
# primary, node b secondary, 64M data + 4M metadata disks each.  Node a
# (tests/vm/nodes/dur-fault-soak-node.sh) runs a verifying fio load (QD 16)
# through NM_FAULTS faults (default 3) of each kind of NM_KINDS (default
# disconnect,suspend,reload,linkcut,kill); after each kind: resync, both
# backing devices identical, switch-over, fio --verify_only on the new
# primary, switch back.  For a "kill" node a prints "NMMARK: kill-peer K
# now"; this script SIGKILLs node b's QEMU and boots it again with the same
# disks.  Named checks: vm/dur-fault-soak/<P>/<kind>/<check>.
#
#   NM_FAULTS=30 tests/vm/run-test.sh dur-fault-soak   (the soak:
#   tests/vm/soak-durability.sh, make soak-durability)
#
# Console logs: build/vm/dur-fault-soak-<P>-a.log, -<P>-b<K>.log (K = boot
# number of node b).  On a failure they are copied to
# build/vm/dur-fault-soak-evidence/<time>-<P>/.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vm_traps

name=dur-fault-soak
# A private copy of the initrd for the whole run: vm_build prunes
# build/vm/initrd-*.img older than 30 min (any runner, any time), and node b
# is booted again long after the start; the copy also keeps one module for
# every protocol of the run.
# (the runner's, when inherited, may itself be gone already: build again)
[ -n "${NM_INITRD:-}" ] && [ ! -s "$NM_INITRD" ] && NM_INITRD=
# the load is fio's: its layer over the base (mkbase.sh --fio)
export NM_LAYERS=fio
vm_build || exit 1
priv=$NM_OUT/$name-initrd.$$.img
cp "$NM_INITRD" "$priv" || exit 1
NM_INITRD=$priv
export NM_INITRD
trap 'vm_cleanup; rm -f "$priv"' EXIT

faults=${NM_FAULTS:-3}
protos=${NM_PROTOS:-A B C}
kinds=${NM_KINDS:-disconnect,suspend,reload,linkcut,kill}
nk=$(echo "$kinds" | tr ',' ' ' | wc -w)
# guest timeout per protocol: generous (TCG on a shared host); a kill
# costs a boot of node b and a resync, ~30-60 s
tmo=$((900 + faults * nk * 50))
rc=0
summary=()

run_proto() {
	local P=$1 pa pb pid_a log_a pid_b log_b k=0 prc=0 out t0=$SECONDS
	pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
	pb=$((pa + 1))
	rm -f "$NM_OUT/$name-$P"-[ab]-*.img
	start_b() {
		vm_start --name "$name-$P-b$1" --node b --net "$pb:$pa" --env nm_role=peer \
			--timeout $((tmo + 300)) \
			--disk "$NM_OUT/$name-$P-b-1.img:64M" --disk "$NM_OUT/$name-$P-b-2.img:4M" > /dev/null || return 1
		pid_b=$VM_PID log_b=$VM_LOG
	}
	start_b 0 || return 1
	vm_start --name "$name-$P-a" --node a --net "$pa:$pb" --tests dur-fault-soak-node \
		--env nm_peer=1 --env nm_proto="$P" --env nm_faults="$faults" --env nm_kinds="$kinds" \
		--env nm_timeout="$tmo" --timeout $((tmo + 120)) \
		--disk "$NM_OUT/$name-$P-a-1.img:64M" --disk "$NM_OUT/$name-$P-a-2.img:4M" > /dev/null || return 1
	pid_a=$VM_PID log_a=$VM_LOG
	echo "protocol $P: $faults faults of each of $kinds (guest timeout ${tmo}s); logs $log_a $log_b"
	while kill -0 "$pid_a" 2>/dev/null; do
		if grep -qF "NMMARK: kill-peer $((k + 1)) now" "$log_a" 2>/dev/null; then
			k=$((k + 1))
			if ! vm_verdict "$log_b" - > /dev/null; then
				echo "protocol $P kill $k: node b crashed before the kill ($log_b)"
				prc=1
			fi
			vm_kill "$pid_b"
			start_b "$k" || { prc=1; break; }
		fi
		sleep 0.2
	done
	vm_wait "$pid_a" 10
	if grep -q '^NMTEST-DONE' "$log_a"; then
		vm_wait "$pid_b" 15 || true
	else
		vm_kill "$pid_b"
	fi
	out=$(vm_verdict "$log_a" dur-fault-soak-node) || prc=1
	nm_console "$log_a" | grep -E '^NMLOG: (SUMMARY|protocol)|^NMCHECK: FAIL' | sed 's/^/  /'
	echo "  $P: $out"
	if ! vm_verdict "$log_b" - > /dev/null; then
		echo "  $P: node b ($log_b): crash or dirty dmesg"
		prc=1
	fi
	echo "protocol $P: $k kills of node b, $((SECONDS - t0)) s, $([ $prc = 0 ] && echo PASS || echo FAIL)"
	summary+=("$P $([ $prc = 0 ] && echo PASS || echo FAIL) $((SECONDS - t0))s")
	if [ $prc != 0 ]; then
		local ev
		ev=$NM_OUT/$name-evidence/$(date +%Y%m%d-%H%M%S)-$P
		mkdir -p "$ev"
		cp "$NM_OUT/$name-$P"-*.log "$ev/" 2>/dev/null
		echo "  evidence (console logs) in $ev"
	else
		rm -f "$NM_OUT/$name-$P"-[ab]-*.img
	fi
	return $prc
}

t_all=$SECONDS
for P in $protos; do
	run_proto "$P" || rc=1
done
echo "dur-fault-soak: NM_FAULTS=$faults, kinds $kinds: ${summary[*]}; $((SECONDS - t_all)) s"
exit $rc
