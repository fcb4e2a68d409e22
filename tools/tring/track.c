// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: the processes recorded (-p, --follow) and the command
 * run under the recording (-- COMMAND).
 *
 * The kernel's set is <debugfs>/tring/tracking/pid (its first write
 * replaces it) and tracking/follow. Both are read at setup and written
 * back at exit, whatever ended the run.
 *
 * COMMAND is forked at setup and waits on a pipe: its PID joins the set,
 * with follow on, before it runs anything, so its first event is
 * recorded and so is every process it starts; tr_start_command() lets
 * it exec once the recording runs. The recording stops when it exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

/* What tracking/pid may hold: the kernel takes writes up to 64 KiB. */
#define TR_TRACK_TEXT_MAX	(64 * 1024)

/* SIGCHLD only wakes the record loop's sleep; waitpid() tells. */
static void on_child(int sig)
{
	(void)sig;
}

/*
 * The child: wait for the go, then become COMMAND. Never returns. It
 * starts with every signal blocked (see spawn_command()): one sent to
 * it now meets the default action, not tring-record's handlers.
 */
static void run_command(struct tr_rec *r, int go)
{
	sigset_t none;
	char c;
	ssize_t n;

	/* An ignored SIGXFSZ would stay ignored across exec. */
	tr_default_signals();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do {
		n = read(go, &c, 1);
	} while (n < 0 && errno == EINTR);
	/* No go: tring-record failed to start recording, or died. */
	if (n != 1)
		_exit(TR_EXIT_COMMAND_FAILED);
	/* Raising a nice value needs no privilege: this cannot fail. */
	if (r->reniced)
		r->ops->set_nice(r->old_nice);
	execvp(r->opt.command[0], r->opt.command);
	tr_err("cannot run %s: %s", r->opt.command[0], strerror(errno));
	_exit(errno == ENOENT ? TR_EXIT_COMMAND_NOT_FOUND :
	      TR_EXIT_COMMAND_NOT_RUN);
}

/* Fork COMMAND, held before exec; r->child is its PID. */
static int spawn_command(struct tr_rec *r)
{
	struct sigaction sa;
	sigset_t all, old;
	int go[2];
	pid_t pid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	if (pipe2(go, O_CLOEXEC)) {
		tr_err("cannot make a pipe for %s: %s", r->opt.command[0],
		       strerror(errno));
		return TR_EXIT_SETUP;
	}
	fflush(NULL);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		tr_err("cannot fork for %s: %s", r->opt.command[0],
		       strerror(errno));
		close(go[0]);
		close(go[1]);
		return TR_EXIT_SETUP;
	}
	if (!pid) {
		close(go[1]);
		run_command(r, go[0]);
	}
	close(go[0]);
	r->child = pid;
	r->child_go = go[1];
	return 0;
}

/* Append " N" to @text (@size bytes); -ENOSPC when full. */
static int add_pid(char *text, size_t size, long pid)
{
	size_t len = strlen(text);

	if ((size_t)snprintf(text + len, size - len, "%s%ld", len ? " " : "",
			     pid) >= size - len)
		return -ENOSPC;
	return 0;
}

/* Save what the kernel's tracking files hold, to restore at exit. */
static int save_tracking(struct tr_rec *r)
{
	char val[16];
	int ret;

	r->old_pids = calloc(1, TR_TRACK_TEXT_MAX);
	if (!r->old_pids)
		return -ENOMEM;
	ret = tr_read_small_file(r->track_pid_path, r->old_pids,
				 TR_TRACK_TEXT_MAX);
	if (!ret)
		ret = tr_read_small_file(r->track_follow_path, val,
					 sizeof(val));
	if (ret)
		return ret;
	r->old_follow = val[0] == '1';
	return 0;
}

/* The set to write: -p's PIDs and COMMAND's, blank-separated. */
static int new_set(struct tr_rec *r, char *text, size_t size)
{
	unsigned int i;
	int ret = 0;

	text[0] = '\0';
	for (i = 0; i < r->opt.npids && !ret; i++)
		ret = add_pid(text, size, r->opt.pids[i]);
	if (!ret && r->child)
		ret = add_pid(text, size, r->child);
	return ret;
}

static int track_paths(struct tr_rec *r)
{
	if (tr_join(r->track_pid_path, sizeof(r->track_pid_path),
		    r->tring_dir, "tracking/pid") ||
	    tr_join(r->track_follow_path, sizeof(r->track_follow_path),
		    r->tring_dir, "tracking/follow"))
		return TR_EXIT_SETUP;
	if (access(r->track_pid_path, F_OK)) {
		tr_err("%s: no process tracking in this tring module (-p, --follow, COMMAND need it)",
		       r->track_pid_path);
		return TR_EXIT_SETUP;
	}
	return 0;
}

/* Write follow, then the set, so that no fork of the set is missed. */
static int write_tracking(struct tr_rec *r, const char *set, bool follow)
{
	int ret;

	ret = r->ops->knob_write(r->track_follow_path, follow ? "1" : "0");
	if (!ret)
		r->tracking_changed = true;
	if (!ret && *set)
		ret = r->ops->knob_write(r->track_pid_path, set);
	if (ret == -ESRCH)
		tr_err("a process of '%s' exited before it could be tracked",
		       set);
	else if (ret)
		tr_err("cannot set the processes recorded (%s): %s",
		       r->track_pid_path, strerror(-ret));
	return ret ? TR_EXIT_SETUP : 0;
}

/**
 * tr_apply_tracking - put -p, --follow and COMMAND in force
 * @r: the run.
 *
 * Forks COMMAND (held before exec until tr_start_command()).
 *
 * Return: 0, or an exit status after saying what failed.
 */
int tr_apply_tracking(struct tr_rec *r)
{
	char set[4096];
	int ret;

	if (!r->opt.npids && !r->opt.command && !r->opt.follow)
		return 0;
	ret = track_paths(r);
	if (ret)
		return ret;
	ret = save_tracking(r);
	if (ret) {
		tr_err("cannot read %s: %s", r->track_pid_path, strerror(-ret));
		return TR_EXIT_SETUP;
	}
	if (r->opt.command) {
		ret = spawn_command(r);
		if (ret)
			return ret;
	}
	if (new_set(r, set, sizeof(set))) {
		tr_err("too many processes to track");
		return TR_EXIT_USAGE;
	}
	return write_tracking(r, set, r->opt.follow || r->opt.command);
}

/* Keep, of the blank-separated PIDs in @text, those still alive. */
static void keep_live(char *text)
{
	char *save, *tok, *out = text;
	long pid;

	for (tok = strtok_r(text, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		pid = strtol(tok, NULL, 10);
		if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
			continue;
		if (out != text)
			*out++ = ' ';
		memmove(out, tok, strlen(tok));
		out += strlen(tok);
	}
	*out = '\0';
}

/**
 * tr_restore_tracking - put back the set and follow found at setup
 * @r: the run.
 *
 * Processes of that set that exited meanwhile are left out; if none is
 * left, the set is cleared (every process recorded) with a warning.
 */
void tr_restore_tracking(struct tr_rec *r)
{
	bool had = r->old_pids && *r->old_pids;
	int ret;

	if (r->tracking_changed) {
		keep_live(r->old_pids);
		if (had && !*r->old_pids)
			tr_warn("no process of the set tracking/pid held before is left: it is cleared");
		ret = r->ops->knob_write(r->track_pid_path, r->old_pids);
		if (!ret)
			ret = r->ops->knob_write(r->track_follow_path,
						 r->old_follow ? "1" : "0");
		if (ret)
			tr_warn("cannot restore %s: %s", r->track_pid_path,
				strerror(-ret));
		r->tracking_changed = false;
	}
	free(r->old_pids);
	r->old_pids = NULL;
}

/**
 * tr_start_command - let COMMAND exec: the recording runs
 * @r: the run.
 */
void tr_start_command(struct tr_rec *r)
{
	ssize_t n;

	if (r->child_go < 0)
		return;
	do {
		n = write(r->child_go, "g", 1);
	} while (n < 0 && errno == EINTR);
	close(r->child_go);
	r->child_go = -1;
	r->child_started = n == 1;
}

/**
 * tr_command_exited - has COMMAND exited? (reaps it, without waiting)
 * @r: the run.
 *
 * Return: true once, when it is found to have exited.
 */
bool tr_command_exited(struct tr_rec *r)
{
	int st;

	if (!r->child || r->child_reaped ||
	    waitpid(r->child, &st, WNOHANG) != r->child)
		return false;
	r->child_status = st;
	r->child_reaped = true;
	return true;
}

/**
 * tr_end_command - stop COMMAND if it still runs, and reap it
 * @r: the run.
 *
 * One never started is let go (it exits); one running is sent SIGTERM,
 * and SIGKILL 2 seconds later.
 */
void tr_end_command(struct tr_rec *r)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int i, st;

	if (!r->child || r->child_reaped)
		return;
	if (r->child_go >= 0) {
		close(r->child_go);
		r->child_go = -1;
	} else {
		tr_note(r, "stopping %s (pid %d)", r->opt.command[0],
			(int)r->child);
		kill(r->child, SIGTERM);
	}
	for (i = 0; i < 20 && !tr_command_exited(r); i++)
		nanosleep(&tick, NULL);
	if (r->child_reaped)
		return;
	kill(r->child, SIGKILL);
	if (waitpid(r->child, &st, 0) == r->child) {
		r->child_status = st;
		r->child_reaped = true;
	}
}

/**
 * tr_command_status - the exit status of a run with COMMAND
 * @r: the run.
 * @status: tring-record's own exit status.
 *
 * Return: COMMAND's (128 + N when killed by signal N) if the recording
 * succeeded and COMMAND ran, else TR_EXIT_COMMAND_FAILED; COMMAND's
 * child exits TR_EXIT_COMMAND_NOT_FOUND or _NOT_RUN when exec fails.
 */
int tr_command_status(const struct tr_rec *r, int status)
{
	if (status || !r->child_started || !r->child_reaped)
		return TR_EXIT_COMMAND_FAILED;
	if (WIFEXITED(r->child_status))
		return WEXITSTATUS(r->child_status);
	if (WIFSIGNALED(r->child_status))
		return 128 + WTERMSIG(r->child_status);
	return TR_EXIT_COMMAND_FAILED;
}
