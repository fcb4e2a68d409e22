// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: the run, from the command line to the exit status.
 *
 *	setup.c		environment, knobs, streams, statedump
 *	events.c	-e (the events recorded); list.c --list
 *	output.c	output directory, writes, metadata
 *	relay.c		or the same to LTTng's relay daemon (-o net://)
 *	loop.c		record loop and drain
 *	summary.c	status line and summary
 *	util.c		messages, paths, small files (used by all)
 *
 * All allocation happens at setup, sized by the number of CPUs; the
 * record loop allocates nothing, however long the trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

volatile sig_atomic_t tr_stop_requests;

/*
 * Also what the signal handler does. Counts, so that a second request
 * can cut the drain short.
 */
void tr_request_stop(void)
{
	tr_stop_requests++;
}

/*
 * The signals that stop a recording as Ctrl-C does: a terminal closed,
 * Ctrl-\, a reader of our standard error gone. Each must end the run
 * with the kernel state put back, never kill it half-way.
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

/**
 * tr_stop_sigset - the signals that stop a recording
 * @set: filled with them.
 */
void tr_stop_sigset(sigset_t *set)
{
	unsigned int i;

	sigemptyset(set);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(set, stop_signals[i]);
}

/*
 * Their dispositions when tring-record started, which COMMAND gets back.
 * SIGHUP ignored then (nohup) stays ignored. The others are always
 * handled: a script's background job starts with SIGINT and SIGQUIT
 * ignored, and a script stops its background tring-record with SIGINT.
 */
static struct sigaction saved_stop[ARRAY_SIZE(stop_signals)], saved_xfsz;
static bool stop_saved;

/* Set @handler for the stop signals (SIGHUP: unless ignored when we started). */
static void set_stop_handlers(void (*handler)(int))
{
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the signal must end ppoll() at once. */
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		if (stop_signals[i] != SIGHUP ||
		    saved_stop[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
}

static void on_signal(int sig)
{
	int saved = errno;

	tr_request_stop();
	/*
	 * The second one cuts the drain short; a third must kill, even if
	 * something hangs. sigaction() is async-signal-safe.
	 */
	if (tr_stop_requests >= 2)
		set_stop_handlers(SIG_DFL);
	errno = saved;
	(void)sig;
}

/*
 * Catch the stop signals from the start: a stop asked for while setting
 * up ends the recording as soon as it begins (what the buffer holds is
 * still saved), instead of killing tring-record half-way. A file grown
 * past RLIMIT_FSIZE is a failed write (EFBIG, exit status 3), not a
 * death by SIGXFSZ.
 */
static void catch_signals(struct tr_rec *r)
{
	struct sigaction ign;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], NULL, &saved_stop[i]);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGXFSZ, &ign, &saved_xfsz);
	stop_saved = true;
	set_stop_handlers(on_signal);
	r->signals_caught = true;
}

/*
 * While recording, keep them blocked except while sleeping in ppoll(),
 * so that one arriving between the check of tr_stop_requests and the
 * sleep is not missed until the next timeout.
 */
static void block_signals(struct tr_rec *r)
{
	unsigned int i;
	sigset_t set;

	tr_stop_sigset(&set);
	/* COMMAND's exit wakes the sleep too. */
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &r->old_mask);
	r->wait_mask = r->old_mask;
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigdelset(&r->wait_mask, stop_signals[i]);
	sigdelset(&r->wait_mask, SIGCHLD);
	r->signals_blocked = true;
}

/* Every signal tring-record handles back as it found it (also COMMAND's). */
void tr_default_signals(void)
{
	unsigned int i;

	signal(SIGCHLD, SIG_DFL);
	if (!stop_saved)
		return;
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &saved_stop[i], NULL);
	sigaction(SIGXFSZ, &saved_xfsz, NULL);
}

static void restore_signals(struct tr_rec *r)
{
	/* One that came in since the last sleep only bumps the counter. */
	if (r->signals_blocked)
		sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
	if (r->signals_caught)
		tr_default_signals();
	r->signals_blocked = false;
	r->signals_caught = false;
}

static int setup(struct tr_rec *r)
{
	int ret;

	ret = tr_check_environment(r);
	/* Before anything is changed: a second run must not harm this one. */
	if (!ret)
		ret = tr_lock(r);
	if (!ret) {
		tr_set_priority(r);
		ret = tr_prepare_output(r);
	}
	if (!ret) {
		tr_warn_leftovers(r);
		ret = tr_apply_knobs(r);
	}
	/* Contexts make a new buffer: before its streams open. */
	if (!ret)
		ret = tr_set_context(r);
	if (!ret)
		tr_write_symbols(r, false);
	/* Before -e starts the events: none of an untracked process. */
	if (!ret)
		ret = tr_apply_tracking(r);
	if (!ret)
		ret = tr_select_events(r);
	if (!ret)
		ret = tr_open_streams(r);
	if (!ret)
		ret = tr_create_outputs(r);
	/* Without metadata the streams are still worth having. */
	if (!ret)
		tr_copy_metadata(r, false);
	/* The streams are open: the statedump is recorded from its start. */
	if (!ret)
		tr_statedump(r);
	return ret;
}

static void teardown(struct tr_rec *r)
{
	unsigned int i;

	/* COMMAND, if setup failed before it ran: it exits. */
	tr_end_command(r);
	tr_close_outputs(r);
	/* After Ctrl-C, an error or a failed start alike. */
	tr_restore_events(r);
	tr_restore_tracking(r);
	for (i = 0; r->cpus && i < r->ncpus; i++)
		r->ops->close(&r->cpus[i]);
	/* The streams closed: the buffer can be rebuilt without them. */
	tr_restore_context(r);
	free(r->cpus);
	free(r->set);
	free(r->pfd);
	tr_close_dirs(r);
	tr_unlock(r);
	/*
	 * Last: a Ctrl-C while the events are put back (hundreds of
	 * enable files with -e 'sys_*') must not kill us half-way.
	 */
	restore_signals(r);
}

/*
 * The exit status of a run that started recording, derived once, at the
 * end, from what the run recorded about how it ended. When several
 * things went wrong, the first that applies wins, the one that cost the
 * most data first:
 *
 *	3 TR_EXIT_OUTPUT	writing or closing an output file failed,
 *				or the relay was lost: data taken from the
 *				kernel is not on disk (or on the relay)
 *	4 TR_EXIT_STREAM	a stream failed (an ioctl, or waiting for
 *				data): what its CPU wrote after that is not
 *				read
 *	5 TR_EXIT_ABORTED	a second signal cut the drain short
 *	0 TR_EXIT_OK		stopped by a signal, by the duration, or
 *				because the buffer was destroyed (every
 *				stream hung up) and all it held is saved; a
 *				drain that timed out is only a warning
 *
 * 1 (TR_EXIT_USAGE) and 2 (TR_EXIT_SETUP) end a run before it records.
 */
static int derive_exit_status(const struct tr_rec *r)
{
	if (r->output_error)
		return TR_EXIT_OUTPUT;
	if (r->stream_error)
		return TR_EXIT_STREAM;
	if (r->drain == TR_DRAIN_ABORTED)
		return TR_EXIT_ABORTED;
	return TR_EXIT_OK;
}

static void finish(struct tr_rec *r)
{
	int ret;

	tr_refresh_status(r);
	/* To the relay: the events described meanwhile, before it closes. */
	if (r->net && !r->meta_final)
		tr_copy_metadata(r, true);
	tr_close_outputs(r);
	r->exit_status = derive_exit_status(r);
	if (!r->net && !r->meta_final)
		tr_copy_metadata(r, true);
	if (!r->opt.quiet)
		tr_print_summary(r);
	/* Streamed: nothing is written here unless --summary says where. */
	ret = r->net && !r->opt.summary ? 0 : tr_write_summary_file(r);
	if (ret)
		tr_warn("cannot write the summary %s%s: %s",
			r->opt.summary ?: r->out_dir,
			r->opt.summary ? "" : "/.tring-record.summary",
			strerror(-ret));
}

static void record(struct tr_rec *r)
{
	block_signals(r);
	r->t_start = r->ops->now_ns();
	r->t_status = r->t_start;
	r->t_absent = r->t_start;
	r->t_live = r->t_start;
	/* The metadata was sent at setup. */
	r->t_meta = r->t_start + TR_LIVE_META_NS;
	tr_start_command(r);
	tr_record_loop(r);
	tr_drain(r);
	/*
	 * The metadata names the traced functions of the set in force: the
	 * final copy before --function's set is put back.
	 */
	if (r->funcs_changed || r->ctx_changed) {
		tr_copy_metadata(r, true);
		r->meta_final = true;
	}
	tr_write_symbols(r, true);
	/*
	 * What recording needed of the kernel is done: put back the events
	 * and the tracking now, not after the relay's linger and round
	 * trips (teardown() does it for a run that did not get here).
	 */
	tr_restore_events(r);
	tr_restore_tracking(r);
	tr_live_end(r);
	r->t_stop = r->ops->now_ns();
	/* Recording stopped first (a signal, the duration): COMMAND too. */
	tr_end_command(r);
	finish(r);
}

/**
 * tr_main - tring-record
 * @argc: argument count.
 * @argv: arguments.
 * @ops: the stream backend.
 *
 * Return: the exit status.
 */
int tr_main(int argc, char **argv, const struct tr_ops *ops)
{
	static struct tr_rec rec;
	struct tr_rec *r = &rec;
	int ret;

	memset(r, 0, sizeof(*r));
	r->ops = ops;
	r->child_go = -1;
	r->lock_fd[0] = r->lock_fd[1] = -1;
	r->out_dirfd = r->trace_dirfd = -1;
	tr_stop_requests = 0;
	tr_status_reset();
	ret = tr_parse_options(&r->opt, argc, argv);
	if (ret)
		return ret < 0 ? TR_EXIT_OK : tr_names_command(argc, argv) ?
		       TR_EXIT_COMMAND_FAILED : ret;
	if (r->opt.reset) {
		ret = tr_check_environment(r) ?: tr_lock(r) ?: tr_reset(r);
		tr_unlock(r);
		return ret;
	}
	if (r->opt.list) {
		ret = tr_check_environment(r) ?: tr_list_events(r);
		tr_restore_events(r);
		return ret;
	}
	r->status_line = !r->opt.quiet && ops->isatty(STDERR_FILENO);
	catch_signals(r);
	ret = setup(r);
	if (!ret) {
		record(r);
		ret = r->exit_status;
	} else {
		tr_remove_output(r);
	}
	teardown(r);
	return r->opt.command ? tr_command_status(r, ret) : ret;
}
