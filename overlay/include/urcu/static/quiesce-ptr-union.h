/*
 * urcu/static/quiesce-ptr-union.h (liburcu overlay; no liburcu counterpart)
 * - liburcu's unions of a queue's or stack's two forms, with a mutex and
 * without (cds_wfcq_head_ptr_t, cds_wfs_stack_ptr_t, ...), made the same
 * way for each.
 *
 * TYPE_ptr_t is for the calls that change the structure, TYPE_const_ptr_t
 * (liburcu 0.15) for those that only look.  In C they are transparent
 * unions: a call takes a pointer to either form.  In C++, which has no
 * transparent unions, they are unions that convert from either pointer
 * (and the const one from the other union), and that a program may declare
 * uninitialized and fill in member by member, as LTTng-tools 2.15 does;
 * liburcu's C++ unions are aggregates with overloaded calls instead, so
 * an aggregate initializer ({ .h = head }) compiles there and not here.
 */
#ifndef _URCU_STATIC_QUIESCE_PTR_UNION_H
#define _URCU_STATIC_QUIESCE_PTR_UNION_H

#include <stddef.h>

#include <urcu/compiler.h>

#ifndef __cplusplus
#define _URCU_PTR_UNIONS(type, bare, full, m)                                  \
	typedef union {                                                        \
		bare *_##m;                                                    \
		full *m;                                                       \
	} __attribute__((__transparent_union__)) type##_ptr_t;                 \
	typedef union {                                                        \
		const bare *_##m;                                              \
		const full *m;                                                 \
	} __attribute__((__transparent_union__)) type##_const_ptr_t
#else
#define _URCU_PTR_UNIONS(type, bare, full, m)                                  \
	typedef union type##_ptr {                                             \
		bare *_##m;                                                    \
		full *m;                                                       \
		type##_ptr() = default;                                        \
		type##_ptr(bare *p) : _##m(p) {}                               \
		type##_ptr(full *p) : m(p) {}                                  \
	} type##_ptr_t;                                                        \
	typedef union type##_const_ptr {                                       \
		const bare *_##m;                                              \
		const full *m;                                                 \
		type##_const_ptr() = default;                                  \
		type##_const_ptr(const bare *p) : _##m(p) {}                   \
		type##_const_ptr(const full *p) : m(p) {}                      \
		type##_const_ptr(type##_ptr_t p) : _##m(p._##m) {}             \
	} type##_const_ptr_t
#endif

/*
 * fn(ptr): the address of the word both forms begin with (a stack's top, a
 * queue head's node), which is all that the calls taking no lock use: the
 * same address whichever member of the union holds it, as the assertion
 * checks.  quiesce's lock-free helpers (_quiesce_wfcq_*, _quiesce_wfs_*,
 * _quiesce_lfs_*) take that address.
 */
#define _URCU_PTR_UNION_LEAD(fn, type, bare, full, m, lead_type, lead)         \
	static inline lead_type *fn(type##_ptr_t p)                            \
	{                                                                      \
		return &p._##m->lead;                                          \
	}                                                                      \
	urcu_static_assert(offsetof(bare, lead) == 0 && offsetof(full, lead) == 0, \
			   "the " #lead " leads both forms of " #type,         \
			   type##_lead_first)

/*
 * fn(p), liburcu's cast of a pointer to one form (form may be const): the
 * pointer itself in C, where every call takes either form through the
 * transparent union; in C++, the union utype.  liburcu has the wfcq
 * head's casts in both languages, named by form (cds_wfcq_head_cast,
 * __cds_wfcq_head_cast, and the const ones), and the stacks' in C++ only,
 * overloaded by form (cds_wfs_stack_cast, cds_lfs_stack_const_cast, ...),
 * which takes C++ linkage: outside a header's extern "C".
 */
#ifdef __cplusplus
#define _URCU_PTR_UNION_CAST(fn, utype, form)                                  \
	static inline utype fn(form *p)                                        \
	{                                                                      \
		return p;                                                      \
	}
#else
#define _URCU_PTR_UNION_CAST(fn, utype, form)                                  \
	static inline form *fn(form *p)                                        \
	{                                                                      \
		return p;                                                      \
	}
#endif

#endif /* _URCU_STATIC_QUIESCE_PTR_UNION_H */
