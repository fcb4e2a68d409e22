// SPDX-License-Identifier: GPL-2.0
/*
 * tring_example: how kernel code outside tring traces its own events.
 *
 * It creates a buffer named "example" (debugfs instances/example/), whose
 * metadata describes two events of its own, and writes them with
 * trace_write_inline(): at load, "ticks" example_tick events and one
 * example_message; then, if period_ms is set, one tick per period from a
 * timer (softirq context).
 *
 *   insmod tring_example.ko ticks=50
 *   tring-record --instance example -o trace/ -d 1
 *   babeltrace2 trace/
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/timer.h>
#include <linux/tring.h>

static unsigned int ticks = 10;
module_param(ticks, uint, 0444);
MODULE_PARM_DESC(ticks, "example_tick events written at load");

static unsigned int period_ms;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "then one example_tick every period_ms (0: none)");

/* The payloads, exactly as the field tables below describe them. */
struct example_tick {
	u64 count;
	u64 jiffies;
} __packed;

struct example_message {
	s32 tid;
	/* then the text, NUL-terminated */
} __packed;

enum { EXAMPLE_TICK = TRING_ID_FIRST_EVENT, EXAMPLE_MESSAGE };

static const struct tring_field example_tick_fields[] = {
	TRING_FIELD(struct example_tick, count, U64),
	TRING_FIELD(struct example_tick, jiffies, U64),
	{ }
};

static const struct tring_field example_message_fields[] = {
	TRING_FIELD(struct example_message, tid, S32),
	TRING_FIELD_TAIL(struct example_message, text, STRING),
	{ }
};

static const struct tring_event_desc example_events[] = {
	{
		.group = "example", .name = "example_tick", .id = EXAMPLE_TICK,
		.size = sizeof(struct example_tick),
		.fields = example_tick_fields,
	},
	{
		.group = "example", .name = "example_message",
		.id = EXAMPLE_MESSAGE, .size = sizeof(struct example_message),
		.fields = example_message_fields,
	},
};

static struct tring_buffer *example_buf;
static struct timer_list example_timer;
static u64 example_count;

static void example_tick(void)
{
	struct example_tick ev = {
		.count = example_count++,
		.jiffies = jiffies,
	};

	trace_write_inline(example_buf, EXAMPLE_TICK, &ev, sizeof(ev));
}

/* A variable-length event, filled in place. */
static void example_message(const char *text)
{
	size_t n = strlen(text) + 1;
	struct example_message *ev;
	struct tring_res res __uninitialized;

	if (tring_reserve(example_buf, EXAMPLE_MESSAGE, sizeof(*ev) + n, &res))
		return;
	ev = res.data;
	ev->tid = current->pid;
	memcpy(ev + 1, text, n);
	tring_commit(&res);
}

static void example_timer_fn(struct timer_list *t)
{
	example_tick();
	mod_timer(&example_timer, jiffies + msecs_to_jiffies(period_ms));
}

static int __init example_init(void)
{
	struct tring_buffer_attr attr = {
		.name = "example",
		.subbuf_size = 16 * 1024,
		.subbuf_count = 8,
		.events = example_events,
		.nr_events = ARRAY_SIZE(example_events),
	};
	unsigned int i;

	example_buf = tring_buffer_create(&attr);
	if (IS_ERR(example_buf))
		return PTR_ERR(example_buf);
	example_message("hello from tring_example");
	for (i = 0; i < ticks; i++)
		example_tick();
	if (period_ms) {
		timer_setup(&example_timer, example_timer_fn, 0);
		mod_timer(&example_timer, jiffies + msecs_to_jiffies(period_ms));
	}
	return 0;
}

static void __exit example_exit(void)
{
	if (period_ms)
		del_timer_sync(&example_timer);
	/* No new writes start now: the buffer can go. */
	tring_buffer_destroy(example_buf);
}

module_init(example_init);
module_exit(example_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tring: example of a module tracing its own events");
