// SPDX-License-Identifier: GPL-2.0
/* tring_tp_b: tring_test_tp.c with the other event (Kbuild: TRING_TP_B). */
#include "tring_test_tp.c"
