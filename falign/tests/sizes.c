// SPDX-License-Identifier: GPL-2.0
/*
 * Functions of many sizes, from a few bytes to a few lines, for the
 * -falign-functions checks of test-falign.sh.  Each STORE is a separate
 * volatile store, so its code cannot be merged and the sizes stay distinct.
 */
volatile int sink;

#define STORE(k)	(sink = x + (k))
#define STORES2(k)	STORE(k), STORE((k) + 1)
#define STORES4(k)	STORES2(k), STORES2((k) + 2)
#define STORES8(k)	STORES4(k), STORES4((k) + 4)

int f1(int x) { STORE(1); return x; }
int f2(int x) { STORES2(1); return x; }
int f3(int x) { STORES2(1), STORE(3); return x; }
int f4(int x) { STORES4(1); return x; }
int f5(int x) { STORES4(1), STORE(5); return x; }
int f6(int x) { STORES4(1), STORES2(5); return x; }
int f7(int x) { STORES4(1), STORES2(5), STORE(7); return x; }
int f8(int x) { STORES8(1); return x; }
int f9(int x) { STORES8(1), STORE(9); return x; }
int f12(int x) { STORES8(1), STORES4(9); return x; }
int f16(int x) { STORES8(1), STORES8(9); return x; }
int f2b(int x) { STORES2(11); return x; }
int f5b(int x) { STORES4(11), STORE(15); return x; }
int f3b(int x) { STORES2(11), STORE(13); return x; }
int f6b(int x) { STORES4(11), STORES2(15); return x; }
int f1b(int x) { STORE(11); return x; }
int f7b(int x) { STORES4(11), STORES2(15), STORE(17); return x; }
