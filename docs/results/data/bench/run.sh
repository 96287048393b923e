set -e
. /bin/phases.sh
seed=$(sed -n 's/.*bench_layout=\([0-9]*\).*/\1/p' /proc/cmdline)
layout "${seed:-0}"
ring 2 9600
ring 4 4800
ring 6 3200
ring 8 2400
ring 12 1600
ring 16 1200
ring 24 800
ring 32 600
ring 64 300
messaging 1 10 100
forkloop 1000
web 1 0 1
web 1 0 400
web 4 0 400
web 16 0 400
web 64 0 400
web 1 1 1000
web 4 1 1000
web 16 1 1000
web 64 1 1000
hackbench process pipe 1 40
hackbench process socket 1 40
hackbench thread pipe 4 10
hackbench thread socket 4 10
