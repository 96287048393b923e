set -e
. /bin/phases.sh
seed=$(sed -n 's/.*bench_layout=\([0-9]*\).*/\1/p' /proc/cmdline)
layout "${seed:-0}"
ring 4 1200
page_map
ring 6 800
page_map
hackbench process pipe 1 10
page_map
hackbench thread socket 2 5
page_map
web 1 0 1
page_map
web 4 0 100
page_map
