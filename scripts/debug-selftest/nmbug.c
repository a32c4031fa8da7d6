// SPDX-License-Identifier: GPL-2.0
/*
 * nmbug: a module that commits one kernel bug on purpose, for the debug
 * kernel's harness self-test (scripts/debug-kernel.sh selftest): the VM test
 * that loads it must FAIL.  insmod nmbug.ko what=NAME:
 *   none       nothing (the control: must PASS)
 *   circular   lock order A->B then B->A   (lockdep: circular locking dependency)
 *   recursive  two locks of one class nested (lockdep: recursive locking)
 *   oob        read past a kmalloc'ed object (KASAN: slab-out-of-bounds)
 *   uaf        read after kfree            (KASAN: use-after-free)
 *   leak       kmalloc never freed         (kmemleak, after the scan)
 *   atomic     might_sleep() under a spinlock (BUG: sleeping function ...)
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *what = "none";
module_param(what, charp, 0444);

static DEFINE_MUTEX(nmbug_a);
static DEFINE_MUTEX(nmbug_b);
static DEFINE_SPINLOCK(nmbug_s);

static noinline char nmbug_read(const char *p, size_t i)
{
	return READ_ONCE(p[i]);
}

static noinline void nmbug_leak_one(void)
{
	char *p = kmalloc(200, GFP_KERNEL);

	if (p)
		memset(p, 0x5a, 200);
}

static int __init nmbug_init(void)
{
	char *p;

	if (!strcmp(what, "circular")) {
		mutex_lock(&nmbug_a);
		mutex_lock(&nmbug_b);
		mutex_unlock(&nmbug_b);
		mutex_unlock(&nmbug_a);
		mutex_lock(&nmbug_b);
		mutex_lock(&nmbug_a);
		mutex_unlock(&nmbug_a);
		mutex_unlock(&nmbug_b);
	} else if (!strcmp(what, "recursive")) {
		struct mutex *m = kcalloc(2, sizeof(*m), GFP_KERNEL);
		int i;

		if (!m)
			return -ENOMEM;
		for (i = 0; i < 2; i++)
			mutex_init(&m[i]);	/* one call site: one lock class */
		mutex_lock(&m[0]);
		mutex_lock(&m[1]);
		mutex_unlock(&m[1]);
		mutex_unlock(&m[0]);
		kfree(m);
	} else if (!strcmp(what, "oob")) {
		p = kmalloc(24, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		pr_info("nmbug: oob read %d\n", nmbug_read(p, 24 + (what[0] == 'x')));
		kfree(p);
	} else if (!strcmp(what, "uaf")) {
		p = kmalloc(24, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
		pr_info("nmbug: uaf read %d\n", nmbug_read(p, 0));
	} else if (!strcmp(what, "leak")) {
		int i;

		/* several: a stale copy of the last pointer may stay on a stack */
		for (i = 0; i < 8; i++)
			nmbug_leak_one();
		pr_info("nmbug: leaked 8 objects of 200 bytes\n");
	} else if (!strcmp(what, "atomic")) {
		spin_lock(&nmbug_s);
		might_sleep();
		spin_unlock(&nmbug_s);
	} else if (strcmp(what, "none")) {
		return -EINVAL;
	}
	return 0;
}

static void __exit nmbug_exit(void)
{
}

module_init(nmbug_init);
module_exit(nmbug_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("netmirror debug-kernel harness self-test: one bug on purpose");
