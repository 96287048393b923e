// SPDX-License-Identifier: GPL-2.0
/*
 * window [-o FILE] CMD [ARG...]: run a real program inside one kcolour
 * marker window.  The window opens just before the fork and closes once
 * CMD has exited, so it holds CMD's exec and start-up as well as its work
 * (bench/cachesim/README.md says how large that part is).  CMD's stdout
 * and stderr go to FILE when given.  Prints
 *     ctxt=C status=S
 * C being the context switches the kernel counted inside the window and S
 * CMD's exit status; exits with S (128 + signal when killed).
 */
#include <fcntl.h>

#include "kcolour-marker.h"
#include "wl-util.h"

int main(int argc, char **argv)
{
	const char *out = NULL;
	long long ctxt;
	int status, code, fd;
	pid_t pid;

	wl_name = "window";
	if (argc > 2 && !strcmp(argv[1], "-o")) {
		out = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2)
		usage_error("usage: window [-o FILE] CMD [ARG...]");
	if (kcolour_marker_map())
		die("mapping the marker page at %#llx", KCOLOUR_MARKER_ADDR);
	fflush(stdout);

	ctxt = wl_ctxt();
	kcolour_marker_start();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (out) {
			fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(126);
		}
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid %d", (int)pid);
	kcolour_marker_stop();
	ctxt = wl_ctxt() - ctxt;

	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("ctxt=%lld status=%d\n", ctxt, code);
	if (code)
		fprintf(stderr, "window: %s exited with status %d\n", argv[1], code);
	return code;
}
