// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fatscope.c - the fatscope command: dispatch to a subcommand; run as
 * fsck.exfat, fsck.vfat, fsck.fat or fsck.msdos (the names fsck(8) looks
 * for), it is fatscope fsck with that checker's options too.  fatscope
 * help CMD opens fatscope-CMD(8) through man(1), or prints fatscope CMD
 * --help where that page or man(1) is not installed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static const struct cmd_desc *const commands[] = {
	&probe_cmd, &dump_cmd, &ls_cmd, &cat_cmd, &extract_cmd, &fsck_cmd, &label_cmd, &undo_cmd,
	&scan_cmd,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/*
 * The fsck(8) helper names: fsck(8) runs fsck.TYPE with its own arguments.
 * fsck.exfat takes exfatprogs' options too, the others dosfstools'.
 */
static const struct cmd_desc *fsck_helper(const char *argv0)
{
	static const struct {
		const char *name;
		const struct cmd_desc *cmd;
	} names[] = {
		{ "fsck.exfat", &fsck_exfat_cmd }, { "fsck.vfat", &fsck_fat_cmd },
		{ "fsck.fat", &fsck_fat_cmd }, { "fsck.msdos", &fsck_fat_cmd },
	};
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	for (size_t i = 0; base && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(base, names[i].name) == 0)
			return names[i].cmd;
	return NULL;
}

/* Run command c with argv[0] "fatscope NAME": getopt_long's messages then start as ours do. */
static int run_command(const struct cmd_desc *c, int argc, char **argv)
{
	char prog[32];

	snprintf(prog, sizeof(prog), "fatscope %s", c->name);
	argv[0] = prog;
	return c->run(argc, argv);
}

extern char **environ;

/*
 * Whether man(1) finds page in section 8: `man -w 8 PAGE', quiet, exits 0.
 * False when man(1) cannot be run.
 */
static bool man_has_page(const char *page)
{
	char *argv[] = { (char *)"man", (char *)"-w", (char *)"8", (char *)page, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, err;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return false;
	err = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0) ||
	      posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0) ||
	      posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0) ||
	      posix_spawnp(&pid, "man", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return false;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * fatscope help CMD: man 8 fatscope-CMD in place of this process, or,
 * when man(1) or the page is missing (or the exec fails), CMD --help.
 */
static int help_command(const struct cmd_desc *c)
{
	char *hv[] = { NULL, (char *)"--help", NULL };
	char page[48];

	snprintf(page, sizeof(page), "fatscope-%s", c->name);
	if (man_has_page(page)) {
		fflush(NULL);
		execlp("man", "man", "8", page, (char *)NULL);
	}
	return run_command(c, 2, hv);
}

static void usage(FILE *out)
{
	/* The bash completion reads the command names below "Commands:" with LC_ALL=C. */
	fputs(_("Usage:\n fatscope COMMAND [options] DEVICE|IMAGE...\n"
		" fatscope help COMMAND\n\nInspect, check and repair exFAT and FAT12/16/32 volumes.\n"
		"An IMAGE may be an evidence container (EWF .E01, VHD, VMDK, split raw .001/.aa),\n"
		"read as the disk it holds and never written (fatscope --version lists the formats).\n"
		"\nCommands:\n"), out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, " %-8s %s\n", commands[i]->name, _(commands[i]->summary));
	fputs(_("\nOptions:\n -h, --help     display this help\n -V, --version  display version\n"
		"\nSee fatscope(8).\n"), out);
}

/*
 * The locale of the environment, and the catalogue of the program's
 * messages (and of the library's, the same domain): in LOCALEDIR, or in
 * $FATSCOPE_LOCALEDIR when set (tests/cli/i18n.sh runs the build tree's
 * catalogues through it).
 */
static void nls_init(void)
{
	setlocale(LC_ALL, "");
#ifdef ENABLE_NLS
	const char *dir = getenv("FATSCOPE_LOCALEDIR");

	if (!dir || !*dir)
		dir = LOCALEDIR;
	bindtextdomain(PACKAGE, dir);
	textdomain(PACKAGE);
	fsc_nls_bind(dir);
#endif
}

int main(int argc, char **argv)
{
	const struct cmd_desc *helper = argc >= 1 ? fsck_helper(argv[0]) : NULL;
	const char *cmd;

	nls_init();
	if (helper)
		return run_command(helper, argc, argv);
	if (argc < 2) {
		usage(stderr);
		return FATSCOPE_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(stdout);
		return close_stdout_checked(FATSCOPE_OK, FATSCOPE_OPERROR);
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		print_version(NULL);
		return close_stdout_checked(FATSCOPE_OK, FATSCOPE_OPERROR);
	}
	if (strcmp(cmd, "help") == 0) {
		if (argc < 3 || strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0) {
			usage(stdout);
			return close_stdout_checked(FATSCOPE_OK, FATSCOPE_OPERROR);
		}
		cmd = argv[2];
		for (size_t i = 0; i < NCOMMANDS; i++)
			if (strcmp(cmd, commands[i]->name) == 0)
				return help_command(commands[i]);
	} else {
		for (size_t i = 0; i < NCOMMANDS; i++)
			if (strcmp(cmd, commands[i]->name) == 0)
				return run_command(commands[i], argc - 1, argv + 1);
	}
	fprintf(stderr, _("fatscope: unknown command '%s'\nTry 'fatscope --help' for more information.\n"), cmd);
	return FATSCOPE_USAGE;
}
