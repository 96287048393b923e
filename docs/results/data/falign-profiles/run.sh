set -e
. /bin/phases.sh
seed=$(sed -n 's/.*bench_layout=\([0-9]*\).*/\1/p' /proc/cmdline)
layout "${seed:-0}"
ring 4 1200
ring 8 600
forkloop 200
hackbench process pipe 1 10
hackbench thread socket 2 5
web 1 0 1
web 4 0 100
