export interface FuzzTarget {
  name: string;
  kind: 'jazzer' | 'property';
  sync?: boolean;
  instrument?: string[];
  options?: string[];
  covers: string;
}
export const TARGETS: FuzzTarget[];
export function targetNamed(name: string): FuzzTarget;
