"""kcolour's harness: build, boot and results, in the shape of the kernel's
tools/testing/kunit (kunit_kernel.py's LinuxSourceTree, qemu_configs/ as
data, kunit_parser.py).  Standard library only.

    facts     the one data file, facts.tsv: images, models, workloads, paths
    util      what the others share: BUILD, CACHE, Error, say(), git()
    series    the patch series and build/linux (make tree / export)
    kconfig   the fragments: configure, verify, menuconfig
    kernel    image(name): a built, cached, reproducible kernel image; Kmake
    bisect_check
              every commit of the series built on its own
    qemu      Boot(...): one QEMU run; run(boots): a pool, built in or GNU
              parallel, over the same job list
    tap       one KTAP/TAP writer and reader, with skip and nesting
    check     make check's suite runner

The command line is `python3 -m harness` (see harness/__main__.py).
"""
