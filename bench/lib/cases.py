"""Cases more than one experiment runs: stack colouring's paired comparison
(make bench and make bench-paired), and the interval half-width layouts are
counted for."""

# NAME KERNEL-ARGS of stack colouring's paired comparison (make bench and make
# bench-paired): the control, a placebo (colouring off, an argument as long as
# on's, so that the command line moves the boot's allocations alike) and the
# colouring at what the kernel derives.
STACK_CASES = [("off", "kstack_colour=off"), ("placebo", "kstack_colour=off,policy=rr"),
               ("on", "kstack_colour=on,level=auto")]
TARGET = 0.5    # the half-width (%) the layouts are chosen for (make bench-paired)
