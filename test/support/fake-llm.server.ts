/** The fake LLM server lives with the conformance package (its compaction suite needs one); the project's tests use the same. */
export * from '../../libs/conformance/src/support/fake-llm.server';
