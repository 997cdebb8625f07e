import { checkTurnLog } from './turn-log';

const turn = (w: number, i: number) => [`w${w}-q${i}`, `w${w}-a${i}`];

describe('checkTurnLog', () => {
  it('passes a log holding every acknowledged turn once, whole and in order', () => {
    const log = [...turn(0, 0), ...turn(1, 0), ...turn(0, 1), ...turn(1, 1)];
    expect(
      checkTurnLog(
        log,
        new Map([
          ['0', [0, 1]],
          ['1', [0, 1]],
        ]),
      ),
    ).toEqual({
      lost: 0,
      duplicated: 0,
      split: 0,
      outOfOrder: 0,
      present: 4,
    });
  });

  it('counts lost, duplicated, split and reordered turns', () => {
    const log = ['w0-q0', 'w1-q0', 'w0-a0', 'w1-a0', ...turn(0, 2), ...turn(0, 1), ...turn(0, 2)];
    expect(
      checkTurnLog(
        log,
        new Map([
          ['0', [0, 1, 2, 3]],
          ['1', [0]],
        ]),
      ),
    ).toEqual({
      lost: 1,
      duplicated: 1,
      split: 4,
      outOfOrder: 1,
      present: 4,
    });
  });
});
