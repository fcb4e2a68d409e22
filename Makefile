# SPDX-License-Identifier: GPL-2.0
#
# tring: out-of-tree build and the project's entry points.
#
#   make [KDIR=<kernel build dir>]   build the modules (warnings are errors)
#   make tools                       tring-record and friends (static),
#                                    KernelShark's plugin (libkshark-dev)
#   make kernelshark                 the plugin and its ASan build
#   make selftests                   kselftests (static)
#   make check                       every test, on four kernels (+ runs)
#   make run                         boot a guest, record a real trace, show it
#   make bench                       benchmark against ftrace and relay
#   make install [PREFIX=/usr/local] [DESTDIR=]
#                                    DKMS for every kernel with headers,
#                                    tring-record and its man page, the
#                                    KernelShark plugin (PREFIX/lib/tring)
#   make uninstall                   remove all of that
#   make man                         build/tools/tring-record.1
#
# All output goes to build/. Module objects are built in a shadow tree
# per kernel (build/mod/<release>/) so builds for several kernels coexist.

TOP	:= $(CURDIR)
B	:= $(TOP)/build

# Default kernel: the oldest installed Debian kernel with headers (6.1),
# found on the machine; never the running kernel.
KDIR	?= $(firstword $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V))
KNAME	 = $(notdir $(realpath $(KDIR)))
MODDIR	 = $(B)/mod/$(KNAME)
# LTTng's ring-buffer library, for the buffer-alone benchmark
# (tring_bench_lttng.ko): lttng-modules' sources and the library DKMS
# built for this kernel, when both are installed.
LTTNG_SRC ?= $(lastword $(sort $(wildcard /usr/src/lttng-modules-*)))
LTTNG_RB  = $(if $(LTTNG_SRC),$(firstword $(wildcard \
	/lib/modules/$(patsubst linux-headers-%,%,$(KNAME))/updates/dkms/lttng-lib-ring-buffer.ko*)))

MOD_SRCS := $(wildcard kernel/trace/*.c kernel/trace/*.h kernel/trace/*.awk \
		       samples/tring/*.c)
HDRS	 := $(shell find include -name '*.h')

CC	?= gcc
TOOL_CFLAGS := -O2 -g -Wall -Wextra -Werror -static -I$(TOP)/include/uapi \
	       -D_GNU_SOURCE

.PHONY: all modules sparse tools kernelshark selftests twin twin-test check run bench clean distclean help \
	FORCE

all: modules

help:
	@sed -n '3,18p' Makefile

modules: FORCE
	@test -d "$(KDIR)" || { echo "KDIR=$(KDIR): no kernel build tree" >&2; exit 1; }
	@mkdir -p $(MODDIR)/kernel/trace $(MODDIR)/samples/tring
	@ln -sfn $(TOP)/include $(MODDIR)/include
	@ln -sf $(TOP)/Kbuild $(MODDIR)/Kbuild
	@for f in $(MOD_SRCS); do ln -sf $(TOP)/$$f $(MODDIR)/$$f; done
	@find $(MODDIR)/kernel $(MODDIR)/samples -xtype l -delete
	$(if $(LTTNG_RB),@python3 scripts/ko-symvers.py $(LTTNG_RB) >$(MODDIR)/lttng.symvers)
	$(MAKE) -C $(KDIR) M=$(MODDIR) CONFIG_TRING=m CONFIG_TRING_TEST=m \
		CONFIG_TRING_BENCHMARK=m CONFIG_SAMPLE_TRING=m CONFIG_TRING_TEST_TP=m \
		$(if $(LTTNG_RB),CONFIG_TRING_BENCH_LTTNG=m TRING_LTTNG_SRC=$(LTTNG_SRC) \
			KBUILD_EXTRA_SYMBOLS=$(MODDIR)/lttng.symvers) \
		$(KBUILD_EXTRA) modules
	@echo "modules: $(MODDIR)"

# sparse over every module source (C=2 checks files even when up to date).
# Not over tring_bench_lttng.c: its warnings are in LTTng's headers (an
# address space in frontend_api.h, the RCU lock its get_cpu()/put_cpu()
# pair takes and releases on different paths).
sparse:
	@$(MAKE) --no-print-directory modules KBUILD_EXTRA="C=2 CHECK=sparse" LTTNG_SRC=

tools:
	$(MAKE) -C tools/tring O=$(B)/tools
	$(MAKE) -C tools/tring/kernelshark O=$(B)/kernelshark

# KernelShark's plugin, and its ASan build for make check.
kernelshark:
	$(MAKE) -C tools/tring/kernelshark O=$(B)/kernelshark all asan

selftests:
	$(MAKE) -C tools/testing/selftests/tring OUTPUT=$(B)/selftests

twin:
	$(MAKE) -C tools/testing/tring O=$(B)/twin

twin-test:
	$(MAKE) -C tools/testing/tring O=$(B)/twin test

check:
	@scripts/check.sh

run:
	@scripts/run.sh

bench:
	@scripts/bench.sh

# --- install: see scripts/install.sh ------------------------------------------
PREFIX	?= /usr/local

.PHONY: install uninstall man
install: tools man
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh install

uninstall:
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh uninstall

# The man page alone, from tring-record --help: build/tools/tring-record.1
man:
	$(MAKE) -C tools/tring O=$(B)/tools man

clean:
	rm -rf $(B)/mod $(B)/tools $(B)/selftests $(B)/twin $(B)/vm

# Also drops the cached debug kernel and the extracted kernel source.
distclean:
	rm -rf $(B)

FORCE:
