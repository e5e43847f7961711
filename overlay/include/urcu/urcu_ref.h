/*
 * urcu/urcu_ref.h (quiesce overlay) - liburcu's old name for urcu/ref.h.
 */
#warning "urcu/urcu_ref.h is deprecated. Please include urcu/ref.h instead."
#include <urcu/ref.h>
