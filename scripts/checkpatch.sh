#!/bin/bash
# Run the kernel's checkpatch.pl (from Debian's linux-source-6.1) over the
# module's sources.  The script and its data files are unpacked once into
# the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${NM_CACHE:-$HOME/.cache/netmirror}
cp_dir=$CACHE/checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)
	if [ -z "$tarball" ]; then
		apt-get install -y -q --no-install-recommends linux-source-6.1 >/dev/null
		tarball=/usr/src/linux-source-6.1.tar.xz
	fi
	mkdir -p "$cp_dir"
	tar -xJf "$tarball" -C "$cp_dir" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
"$cp_dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,CONSTANT_COMPARISON \
	-f $(ls dm-mirror-net/*.[ch] | grep -v -e "\.mod\.c$" -e nm_params.h)
# nm_params.h is X-macro rows: a row list is not a "complex value"
"$cp_dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,COMPLEX_MACRO,MACRO_ARG_REUSE \
	-f dm-mirror-net/nm_params.h
