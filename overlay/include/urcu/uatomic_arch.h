/*
 * urcu/uatomic_arch.h (liburcu overlay) - the old name of <urcu/uatomic.h>,
 * which liburcu still installs, with the same deprecation warning.
 */
#warning "urcu/uatomic_arch.h is deprecated. Please include urcu/uatomic.h instead."
#include <urcu/uatomic.h>
