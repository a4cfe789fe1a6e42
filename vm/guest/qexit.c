// SPDX-License-Identifier: GPL-2.0
/*
 * qexit: end the guest with an exit status QEMU passes on to the host.
 *
 * QEMU's isa-debug-exit device (iobase 0xf4) exits with (code << 1) | 1
 * when the guest writes code to the port. Before that, drain the serial
 * ports: a write(2) to a tty returns once the data is queued, not sent,
 * and QEMU exiting would lose the last result lines.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <termios.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4

static void drain(const char *tty)
{
	int fd = open(tty, O_WRONLY | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return;
	tcdrain(fd);
	close(fd);
}

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;

	drain("/dev/ttyS1");
	drain("/dev/ttyS0");
	if (ioperm(DEBUG_EXIT_PORT, 4, 1)) {
		perror("qexit: ioperm");
		return 1;
	}
	outb(code & 0x7f, DEBUG_EXIT_PORT);
	/* Only reached without the isa-debug-exit device. */
	fprintf(stderr, "qexit: no isa-debug-exit device\n");
	return 1;
}
