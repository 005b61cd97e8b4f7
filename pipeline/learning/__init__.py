"""Stepan learns from its mistakes (issue 13, the Evolving Intelligence seed): eval
rules on every reply, feedback and corrections, quality statistics, and a nightly
loop whose routing proposals are verified before an operator approves them
(docs/learning.md)."""
