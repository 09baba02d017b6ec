import { describe, expect, it } from 'vitest';
import { MAX_SOURCES, SourceLivenessBoard } from '../../src/daemon/source-liveness-board.js';
import type { SourceLiveness } from '../../src/supervision/types.js';

describe('SourceLivenessBoard', () => {
  it('keeps the latest per source, tells listeners only of changes, and stops telling when asked', () => {
    const board = new SourceLivenessBoard();
    const heard: SourceLiveness[] = [];
    const stop = board.onChange((liveness) => heard.push(liveness));
    expect(board.all()).toEqual([]);
    board.note({ source: 'ble-gateway:hall', up: true });
    board.note({ source: 'ble-gateway:hall', up: true });
    board.note({ source: 'zigbee2mqtt', up: false });
    board.note({ source: 'ble-gateway:hall', up: false });
    expect(heard).toEqual([
      { source: 'ble-gateway:hall', up: true },
      { source: 'zigbee2mqtt', up: false },
      { source: 'ble-gateway:hall', up: false },
    ]);
    expect(board.all()).toEqual([
      { source: 'ble-gateway:hall', up: false },
      { source: 'zigbee2mqtt', up: false },
    ]);
    stop();
    board.note({ source: 'zigbee2mqtt', up: true });
    expect(heard).toHaveLength(3);
    expect(board.all()).toContainEqual({ source: 'zigbee2mqtt', up: true });
  });

  it('holds a bounded number of sources; known ones still change', () => {
    const board = new SourceLivenessBoard();
    for (let i = 0; i < MAX_SOURCES; i++) expect(board.note({ source: `ble-gateway:g${i}`, up: true })).toBe(true);
    expect(board.note({ source: 'ble-gateway:one-too-many', up: true })).toBe(false);
    expect(board.note({ source: 'ble-gateway:g0', up: false })).toBe(true);
    expect(board.all()).toHaveLength(MAX_SOURCES);
  });

  it('tells every listener even when one throws, then passes the fault on', () => {
    const board = new SourceLivenessBoard();
    const heard: string[] = [];
    board.onChange(() => {
      throw new Error('listener fault');
    });
    board.onChange((liveness) => heard.push(liveness.source));
    expect(() => board.note({ source: 'zigbee2mqtt', up: true })).toThrow('listener fault');
    expect(heard).toEqual(['zigbee2mqtt']);
    expect(board.all()).toEqual([{ source: 'zigbee2mqtt', up: true }]);
  });
});
