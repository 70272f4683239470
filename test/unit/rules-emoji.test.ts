import { describe, expect, it } from 'vitest';

import { applyFixes, checkText, rulesFromAttributes } from '../../src/rules/index.js';

const noEmoji = rulesFromAttributes({ emoji: 'none' });
const strip = (text: string) => applyFixes(noEmoji, text).text;

/** Invisible emoji parts that must never be left behind on their own. */
const LEFTOVERS = /[\u200D\uFE0F\u20E3\u{1F3FB}-\u{1F3FF}\u{1F1E6}-\u{1F1FF}\u{E0020}-\u{E007F}]/u;

describe('emoji: "none"', () => {
  it('removes emoji and tidies the spaces they leave', () => {
    expect(strip('Great work 🎉 team! Launch day 🚀🚀 is here.')).toBe('Great work team! Launch day is here.');
    expect(strip('🚀 Launching today')).toBe('Launching today');
    expect(strip('Thanks for waiting 🙏\nWe are on it.')).toBe('Thanks for waiting\nWe are on it.');
    expect(strip('Done 🎉!')).toBe('Done!');
    expect(strip('Hi 👋, team')).toBe('Hi, team');
    expect(strip('- ✅ Tests pass\n- 🎉 🎊 🥳 Shipped')).toBe('- Tests pass\n- Shipped');
    expect(strip('**🚀 Launch** and (🎉 party)')).toBe('**Launch** and (party)');
  });

  it('takes a line that held only emoji with its line break, so no paragraph appears that the model never wrote', () => {
    expect(strip('Done.\n🚀\nNext')).toBe('Done.\nNext');
    expect(strip('Done.\r\n 🎉 🎊 \r\nNext')).toBe('Done.\r\nNext');
    expect(strip('🚀\nLaunch')).toBe('Launch');
    expect(strip('First.\n\n🚀\n\nSecond.')).toBe('First.\n\n\nSecond.');
    expect(strip('Done.\n🚀')).toBe('Done.\n');
  });

  it('removes skin-tone, ZWJ, flag, subdivision-flag and keycap sequences whole', () => {
    const sequences = [
      '👍🏽', // skin tone
      '👨‍👩‍👧', // family (ZWJ)
      '🧑🏾‍💻', // technologist, skin tone + ZWJ
      '👩🏻‍🤝‍👩🏿', // two skin tones + ZWJ
      '🏳️‍🌈', // VS16 + ZWJ
      '❤️‍🔥', // text-default base with VS16 + ZWJ
      '🇩🇪', // flag
      '🏴󠁧󠁢󠁳󠁣󠁴󠁿', // Scotland (tag sequence)
      '1️⃣', // keycap
      '#️⃣',
      '❤️', // VS16
      '☺️',
    ];
    for (const emoji of sequences) {
      const result = strip(`Team ${emoji} update`);
      expect(result, emoji).toBe('Team update');
      expect(LEFTOVERS.test(result), emoji).toBe(false);
    }
  });

  it('reports each sequence once, with offsets covering the whole sequence', () => {
    const input = 'Ship it 👩🏽‍🚀 now 🇫🇷!';
    const violations = checkText(noEmoji, input);
    expect(violations.map((v) => input.slice(v.start, v.end))).toEqual(['👩🏽‍🚀', '🇫🇷']);
    expect(violations[0]?.message).toBe('contains emoji "👩🏽‍🚀"; this persona uses none');
    expect(applyFixes(noEmoji, input)).toEqual({ text: 'Ship it now!', fixed: { emoji: 2 } });
  });

  it('keeps typographic symbols that are not written as emoji', () => {
    const input = 'Acme™ and Acme® © 2025: A ↔ B, 5 ★, ✔ done, #1 and 3 * 4.';
    expect(checkText(noEmoji, input)).toEqual([]);
    expect(strip(input)).toBe(input);
  });

  it('never leaves a stray selector that would turn a kept symbol into an emoji', () => {
    // Without care, removing "👍🏽" leaves "™" + U+FE0F, which is an emoji on the next run.
    expect(strip('Acme™👍🏽\uFE0F rocks')).toBe('Acme™ rocks');
    expect(strip('Acme™🎉\u200D\u{E007F} rocks')).toBe('Acme™ rocks');
  });

  it('keeps the zero-width joiner that Indic scripts need', () => {
    const malayalam = 'നന്ദി, ക്\u200D ശരി';
    expect(strip(malayalam)).toBe(malayalam);
  });

  it('works in Chinese, Japanese, German and Russian text', () => {
    expect(strip('谢谢🎉大家！')).toBe('谢谢大家！');
    expect(strip('ありがとう😊ございます')).toBe('ありがとうございます');
    expect(strip('Viel Erfolg 🍀 für Sie, Grüße 👋')).toBe('Viel Erfolg für Sie, Grüße');
    expect(strip('Спасибо 🙏 за терпение.')).toBe('Спасибо за терпение.');
  });

  it('leaves emoji inside code alone', () => {
    const input = 'Use `:tada: 🎉` in commits 🎉\n```\necho "🚀"\n```';
    expect(strip(input)).toBe('Use `:tada: 🎉` in commits\n```\necho "🚀"\n```');
  });

  it('accepts false and any case of "none", and nothing else', () => {
    expect(rulesFromAttributes({ emoji: false }).stripEmoji).toBe(true);
    expect(rulesFromAttributes({ emoji: ' NONE ' }).stripEmoji).toBe(true);
    for (const emoji of ['sparingly', true, 0, null, ['none']]) {
      expect(rulesFromAttributes({ emoji }).stripEmoji).toBe(false);
    }
    expect(applyFixes(rulesFromAttributes({ emoji: 'allowed' }), 'Yay 🎉').text).toBe('Yay 🎉');
  });
});
