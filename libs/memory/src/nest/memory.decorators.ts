import { Inject } from '@nestjs/common';
import {
  getCompactionServiceToken,
  getMemoryBackendToken,
  getMemoryToken,
} from './memory.injection';

/**
 * Injects the {@link MemoryService} of the memory instance `name` (the default instance without
 * a name): `constructor(@InjectMemory('archive') private readonly archive: MemoryService) {}`.
 */
export function InjectMemory(name?: string): PropertyDecorator & ParameterDecorator {
  return Inject(getMemoryToken(name));
}

/** Injects the {@link MemoryBackend} of the memory instance `name` (the default one without a name). */
export function InjectMemoryBackend(name?: string): PropertyDecorator & ParameterDecorator {
  return Inject(getMemoryBackendToken(name));
}

/** Injects the {@link CompactionService} of the memory instance `name` (the default one without a name). */
export function InjectCompaction(name?: string): PropertyDecorator & ParameterDecorator {
  return Inject(getCompactionServiceToken(name));
}
