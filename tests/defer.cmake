# defer_rcu tests: the fork test cannot run under ThreadSanitizer and says so
# with exit status 77.
set_tests_properties(test_defer_fork PROPERTIES SKIP_RETURN_CODE 77)
