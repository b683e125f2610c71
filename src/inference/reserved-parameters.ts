/** Request parameters that Triton reserves; they never reach a backend as plain parameters. */
const RESERVED_PARAMETERS: ReadonlySet<string> = new Set([
  'sequence_id', 'sequence_start', 'sequence_end', 'priority', 'timeout', 'headers',
  'binary_data_output', 'shared_memory_region', 'shared_memory_offset', 'shared_memory_byte_size',
  'classification', 'binary_data', 'binary_data_size',
]);

export function isReservedParameter(key: string): boolean {
  return RESERVED_PARAMETERS.has(key) || key.startsWith('triton_');
}
