set -e
. /bin/phases.sh
seed=$(sed -n 's/.*bench_layout=\([0-9]*\).*/\1/p' /proc/cmdline)
layout "${seed:-0}"
forkloop 200
page_map
web 1 0 1
page_map
web 4 0 100
page_map
web 4 1 200
page_map
hackbench process socket 1 10
page_map
hackbench thread socket 2 5
page_map
ring 8 600
page_map
