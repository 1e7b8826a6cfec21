/**
 * Support for users' own tests of a join: {@link io.junction.testing.JoinTestDriver} runs the engine's operator for
 * a spec on the calling thread, deterministically, and hands the changelog, dead letters and expiries back as
 * values (docs/JAVA_API.md, "Testing a join").
 */
package io.junction.testing;
