export * from './duration';
export * from './retention-policy';
export * from './retention-lease';
export * from './retention-sweeper';
export * from './retention-scheduler';
