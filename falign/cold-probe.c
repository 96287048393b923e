// SPDX-License-Identifier: GPL-2.0
/*
 * make falign-cold-parts: three functions with a cold branch each, the
 * kinds GCC could move to .text.unlikely without profile feedback.
 */
#define unlikely(x)	__builtin_expect(!!(x), 0)

void other(int x);
void slow_path(int x) __attribute__((cold));
void die(void) __attribute__((noreturn));

int branch_unlikely(int x)
{
	if (unlikely(x > 100)) {
		other(x);
		other(x + 1);
		other(x * 3);
		return 1;
	}
	return x + 1;
}

int branch_to_cold_call(int x)
{
	if (x > 100) {
		other(x);
		slow_path(x);
		other(x * 3);
		return 1;
	}
	return x + 1;
}

int branch_to_noreturn(int x)
{
	if (x > 100) {
		other(x);
		other(x * 3);
		die();
	}
	return x + 1;
}
