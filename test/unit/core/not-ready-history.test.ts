/**
 * The NotReady history (core/not-ready-history.ts): what one read of a node adds, what kubemaint's
 * own reboots do not, what a junk annotation reads as, and how times are counted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  observe,
  ownTransition,
  readRecord,
  timesNotReady,
  writeRecord,
  type NotReadyRecord,
} from '../../../src/core/not-ready-history.js';

const HOUR = 3_600_000;
const now = new Date('2026-11-25T12:00:00Z');
const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * HOUR).toISOString();
const look = (record: NotReadyRecord, status: string, since: string, ours = false) =>
  observe(record, { status, since }, { now, keepMs: 6 * HOUR, ours });

describe('observe', () => {
  it('a first look at a Ready node records where it stands, with no episode', () => {
    assert.deepEqual(look({ episodes: [] }, 'True', at(30)), {
      seen: at(30),
      status: 'True',
      episodes: [],
    });
  });

  it('a first look at a NotReady node counts it', () => {
    assert.deepEqual(look({ episodes: [] }, 'Unknown', at(1))?.episodes, [at(1)]);
  });

  it('nothing moved: no write', () => {
    assert.equal(look({ seen: at(30), status: 'True', episodes: [] }, 'True', at(30)), undefined);
  });

  it('Ready → NotReady counts; NotReady → Ready does not count again', () => {
    const down = look({ seen: at(30), status: 'True', episodes: [] }, 'Unknown', at(2))!;
    assert.deepEqual(down.episodes, [at(2)]);
    const up = look(down, 'True', at(1))!;
    assert.deepEqual(up.episodes, [at(2)]);
    assert.equal(up.status, 'True');
  });

  it('Unknown → False within one episode is not a second one', () => {
    const down = look({ seen: at(30), status: 'True', episodes: [] }, 'Unknown', at(2))!;
    assert.deepEqual(look(down, 'False', at(1.5))?.episodes, [at(2)]);
  });

  it('Ready both times with a newer transition: it went down and back between two reads', () => {
    const record = { seen: at(30), status: 'True', episodes: [] };
    assert.deepEqual(look(record, 'True', at(1))?.episodes, [at(1)]);
  });

  it("kubemaint's own reboot is not a flap, but the record moves on", () => {
    const record = { seen: at(30), status: 'True', episodes: [] };
    const mine = look(record, 'True', at(1), true)!;
    assert.deepEqual(mine, { seen: at(1), status: 'True', episodes: [] });
    assert.deepEqual(look(record, 'Unknown', at(1), true)?.episodes, []);
  });

  it('drops episodes older than the span (a write even when nothing else moved)', () => {
    const record = { seen: at(2), status: 'True', episodes: [at(10), at(3)] };
    assert.deepEqual(look(record, 'True', at(2))?.episodes, [at(3)]);
  });
});

describe('ownTransition', () => {
  it('in flight, or the last maintenance ended at or after it within the span', () => {
    assert.equal(ownTransition(at(1), { inFlight: true }, HOUR), true);
    assert.equal(ownTransition(at(1), { inFlight: false, lastMaintenanceAt: at(0.9) }, HOUR), true);
    assert.equal(ownTransition(at(1), { inFlight: false, lastMaintenanceAt: at(3) }, HOUR), false);
    assert.equal(ownTransition(at(3), { inFlight: false, lastMaintenanceAt: at(1) }, HOUR), false);
    assert.equal(
      ownTransition(undefined, { inFlight: false, lastMaintenanceAt: at(1) }, HOUR),
      false,
    );
  });
});

describe('readRecord / writeRecord / timesNotReady', () => {
  it('reads what it writes, and junk as no record', () => {
    const record = { seen: at(1), status: 'True', episodes: [at(2), at(1)] };
    assert.deepEqual(readRecord(writeRecord(record)), record);
    for (const junk of [
      undefined,
      '',
      'not json',
      '[]',
      '{"episodes":"x"}',
      '{"episodes":[1,"nope"]}',
    ])
      assert.deepEqual(readRecord(junk).episodes, [], String(junk));
  });

  it('counts the episodes within the span', () => {
    const record = { episodes: [at(7), at(5), at(1)] };
    assert.equal(timesNotReady(record, now, 6 * HOUR), 2);
    assert.equal(timesNotReady(record, now, 2 * HOUR), 1);
  });
});
