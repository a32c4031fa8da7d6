# netmirror: top-level build.
#
#   make            module (against the testbed kernel's headers), library, tools
#   make deps       install build and testbed dependencies from Debian packages
#   make check      unit tests, the module built by DKMS, then VM tests booting
#                   it; ends with "N passed, N failed"
#   make check-cluster   netmirror failed over by Pacemaker + Corosync in two
#                   VMs (tests/vm/scenarios/cluster-failover.sh, docs/cluster.md;
#                   not in make check since 1.18.11, for its 40-minute budget;
#                   2-3.5 min of wall time)
#   make check-durability   the durability VM tests of issues 10 and 11
#                   (tests/vm/durability.list; all pass, the longer ones out of
#                   make check for its 40-minute budget: ~31 min more)
#   make soak-durability   their fault soak at the issue's count: 30 faults
#                   of each kind per protocol (tests/vm/soak-durability.sh)
#   make check-debug   VM tests on a debug kernel (lockdep, KASAN, kmemleak;
#                   built once into $(NM_CACHE)/debug-kernel by
#                   scripts/debug-kernel.sh); TESTS="a b" runs only those
#   make demo       two-node mirror demo in two QEMU VMs
#   make bench      netmirror vs DRBD 8.4 fio benchmark in one VM (~80 min;
#                   BENCH_ARGS=--quick: ~12 min smoke run; tests/bench/README.md)
#   make bench-test the benchmark's report arithmetic and a stubbed dry run of
#                   its guest script, on the host, no VM
#   make fuzz       build and run the fuzz targets (clang, libFuzzer + ASan)
#   make install    install module, library, headers, pkg-config file, tools, man pages,
#                   bash completion, systemd units,
#                   the OCF resource agent ($(OCF_ROOT)/resource.d/netmirror/netmirror)
#                   and the fence-peer scripts ($(PREFIX)/lib/netmirror/)
#   make dkms       the module built, the way netmirror-dkms builds it, by DKMS
#                   (dkms add/build/install, trees in build/dkms/) for $(KVER);
#                   prints the .ko's path: NM_KO=<path> makes the VM tests boot it
#   make deb        Debian packages in build/deb/ (debian/README.source), lintian
#
# KDIR=<kernel build dir> builds the module for another kernel, e.g.
#   make KDIR=/lib/modules/$(uname -r)/build

NM_CACHE ?= $(HOME)/.cache/netmirror
export NM_CACHE
KVER ?= $(shell cat $(NM_CACHE)/kver 2>/dev/null || uname -r)
KDIR ?= /usr/src/linux-headers-$(KVER)
export KVER KDIR

PREFIX ?= /usr/local
DESTDIR ?=
OCF_ROOT ?= /usr/lib/ocf
export PREFIX DESTDIR

.PHONY: all module lib tools dkms deb deps check check-debug unit vmtest check-cluster check-durability soak-durability vm-selftest demo bench bench-test fuzz install clean checkpatch

all: module lib tools

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/dm-mirror-net W=1 modules

lib:
	$(MAKE) -C libdmnet

tools: lib
	$(MAKE) -C tools

deps:
	scripts/deps.sh

unit: lib
	$(MAKE) -C tests/unit check

vmtest: all
	tests/vm/suite.sh

check-durability: all
	tests/vm/suite.sh tests/vm/durability.list

# two VMs, Corosync + Pacemaker, the primary killed (docs/cluster.md)
check-cluster: all
	tests/vm/run-test.sh cluster-failover

# dur-fault-soak with NM_FAULTS=30 (1-2 h under TCG); not in make check
soak-durability: all
	tests/vm/soak-durability.sh

# the testbed's own self-tests: passes when each tests/vm/selftest/ test FAILs
vm-selftest:
	tests/vm/selftest/run.sh

# (the build runs two jobs at a time: the module's files build in parallel)
check:
	$(MAKE) -j2 all
	scripts/check.sh

# the module is built against the debug kernel in build/debug-module/, not
# in dm-mirror-net/ (see scripts/debug-kernel.sh)
check-debug: lib tools
	scripts/debug-kernel.sh check $(TESTS)

demo: all
	tests/vm/demo.sh

# not part of make check: one VM for ~80 min (tests/bench/README.md)
bench: all
	tests/bench/run.sh --no-build $(BENCH_ARGS)

bench-test:
	tests/bench/test-report.sh
	tests/bench/test-flow.sh

fuzz: lib
	$(MAKE) -C tests/fuzz run

checkpatch:
	scripts/checkpatch.sh

dkms:
	scripts/dkms.sh build

deb:
	scripts/deb.sh

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR)/dm-mirror-net INSTALL_MOD_PATH=$(DESTDIR) modules_install
	$(MAKE) -C libdmnet install
	$(MAKE) -C tools install
	install -d $(DESTDIR)$(OCF_ROOT)/resource.d/netmirror $(DESTDIR)$(PREFIX)/lib/netmirror
	install -m 755 tools/ocf/netmirror $(DESTDIR)$(OCF_ROOT)/resource.d/netmirror/netmirror
	install -m 755 tools/ocf/crm-fence-peer.sh $(DESTDIR)$(PREFIX)/lib/netmirror/crm-fence-peer.sh
	ln -sf crm-fence-peer.sh $(DESTDIR)$(PREFIX)/lib/netmirror/crm-unfence-peer.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/dm-mirror-net clean
	$(MAKE) -C libdmnet clean
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	-$(MAKE) -C tests/fuzz clean
	rm -rf build
