import { PanicPairError } from '../errors.js';

/**
 * A provisioning input refused: which row of the batch (none for a single hub) and which field
 * (a flag or a CSV column). A usage error, so the CLI exits 2. The message never quotes a secret:
 * a token or code file is named by its path, never by its content.
 */
export class ProvisionInputError extends PanicPairError {
  readonly field: string;
  readonly row: number | undefined;

  constructor(where: { field: string; row?: number | undefined }, problem: string, options?: { cause?: unknown }) {
    super('usage', `${placeOf(where)}: ${problem}`, options);
    this.name = 'ProvisionInputError';
    this.field = where.field;
    this.row = where.row;
  }
}

/** "--customer" for a single hub; "row 3, customerId" in a batch (rows counted as a spreadsheet does, the header is row 1). */
export function placeOf(where: { field: string; row?: number | undefined }): string {
  return where.row === undefined ? where.field : `row ${where.row}, ${where.field}`;
}
