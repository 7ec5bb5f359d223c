package main

const testsPerPointUsage = "run each point with at most `N` of the tests that reach it, those that reach the fewest points first (0: every test); the report says the bound"
