set -e
. /bin/phases.sh
seed=$(sed -n 's/.*bench_layout=\([0-9]*\).*/\1/p' /proc/cmdline)
layout "${seed:-0}"
ring 4 1200
slab_info
ring 6 800
slab_info
hackbench process pipe 1 10
slab_info
hackbench thread socket 2 5
slab_info
web 1 0 1
slab_info
web 4 0 100
slab_info
