/*
 * nmkey: add a key to the user keyring (no keyutils in the test image).
 *
 *   nmkey add TYPE DESCRIPTION DATA     e.g. nmkey add logon nm:r0 s3cret
 *   nmkey revoke DESCRIPTION TYPE
 *
 * Prints the key serial number.  Exit 0 on success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KEY_SPEC_USER_KEYRING -4
#define KEYCTL_REVOKE 3
#define KEYCTL_SEARCH 10

int main(int argc, char **argv)
{
	long id;

	if (argc == 5 && !strcmp(argv[1], "add")) {
		id = syscall(SYS_add_key, argv[2], argv[3], argv[4],
			     strlen(argv[4]), KEY_SPEC_USER_KEYRING);
		if (id < 0) {
			fprintf(stderr, "nmkey: add_key: %s\n", strerror(errno));
			return 1;
		}
		printf("%ld\n", id);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "revoke")) {
		id = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING,
			     argv[3], argv[2], 0);
		if (id < 0 || syscall(SYS_keyctl, KEYCTL_REVOKE, id) < 0) {
			fprintf(stderr, "nmkey: revoke: %s\n", strerror(errno));
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "usage: nmkey add TYPE DESC DATA | nmkey revoke DESC TYPE\n");
	return 2;
}
