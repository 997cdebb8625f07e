export * from './json-file.store';
export * from './json-file.backend';
