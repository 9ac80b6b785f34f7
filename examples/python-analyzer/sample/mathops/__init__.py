"""A small project for the analyzer's tests: arithmetic with side effects."""
