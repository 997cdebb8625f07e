/** Separate OS processes for cross-process tests: the conformance package's helper, shared with the project's tests. */
export * from '../../libs/conformance/src/support/child-script';
