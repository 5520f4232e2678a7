# Shared by tools/quickstart and tools/check: install what the build needs
# (Debian 12, as root), then configure and build fpref in the source tree.
# Sourced, not run.

# fpref_extra_packages: what the sourcing script wants besides (tools/check:
# Open MPI, for fpref-sweep-mpi and its test).
fpref_packages="build-essential autoconf automake libtool pkg-config libgmp-dev libmpfr-dev check ${fpref_extra_packages:-}"

fpref_install_dependencies() {
	missing=""
	for p in $fpref_packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "fpref: missing Debian packages:$missing" >&2
		echo "fpref: run as root, or: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "fpref: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

fpref_build() {
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
		# quiet (libtoolize's chatter is no news), but shown in full if it fails
		if ! log=$(autoreconf -fi 2>&1); then
			printf '%s\n' "$log" >&2
			exit 1
		fi
	fi
	if [ ! -f Makefile ] || [ configure -nt Makefile ]; then
		./configure --quiet
	fi
	make -j"$(nproc)" >/dev/null
}

cd "$(dirname "$0")/.." || exit 1
fpref_install_dependencies
fpref_build
