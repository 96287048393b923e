"""The selftest matrix, make demo, and the kernel's tests run as test labs run them."""
