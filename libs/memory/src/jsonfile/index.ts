export * from './json-file.store';
export * from './json-file.backend';
export * from './json-file-compaction-job.store';
export * from './json-file-audit.log';
export * from './json-file-lease.store';
export * from './json-file.driver';
export * from './json-file.defaults';
