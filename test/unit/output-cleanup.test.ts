import { describe, expect, it } from 'vitest';

import { cleanModelOutput } from '../../src/refine/output-cleanup.js';

const REWRITE = "Sorry, your export didn't go through. Let's fix that: open Settings → Exports and hit Retry.";

describe('cleanModelOutput removes wrappers models add', () => {
  it.each([
    ['Here is the rewritten text:\n\n'],
    ["Here's the rewritten text:\n"],
    ['Sure! Here’s the refined version:\n\n'],
    ["Certainly! Here is the text rewritten in Acme Support's voice:\n\n"],
    ['Okay, here is the revised message:\n'],
    ['Below is the polished version of your text:\n\n'],
    ["Here's my rewrite:\n"],
    ['Rewritten text:\n'],
    ['REFINED VERSION:\r\n\r\n'],
    ['**Rewritten text:**\n\n'],
    ['Sure!\n\nHere is the rewritten text:\n\n'],
  ])('a preamble line: %j', (preamble) => {
    expect(cleanModelOutput(`${preamble}${REWRITE}`)).toBe(REWRITE);
  });

  it.each([
    ['straight double quotes', `"${REWRITE}"`],
    ['curly double quotes', `“${REWRITE}”`],
    ['German quotes', `„${REWRITE}“`],
    ['guillemets with inner spaces', `« ${REWRITE} »`],
    ['straight single quotes around text with apostrophes', `'${REWRITE}'`],
    ['curly single quotes around text with curly apostrophes', `‘Don’t worry, we’ve got you.’`],
  ])('quotes around the whole answer: %s', (_name, answer) => {
    const expected = answer.startsWith('‘') ? 'Don’t worry, we’ve got you.' : REWRITE;
    expect(cleanModelOutput(answer)).toBe(expected);
  });

  it.each([
    ['a bare fence', '```\n'],
    ['a fence with a language', '```text\n'],
    ['a fence with a language and trailing spaces', '```markdown  \r\n'],
  ])('%s around the whole answer', (_name, opening) => {
    expect(cleanModelOutput(`${opening}${REWRITE}\n\`\`\``)).toBe(REWRITE);
  });

  it('the delimiter tags echoed from the prompt', () => {
    expect(cleanModelOutput(`<text-to-rewrite id="13qvjzq">\n${REWRITE}\n</text-to-rewrite id="13qvjzq">`)).toBe(
      REWRITE,
    );
    expect(cleanModelOutput(`<text-to-rewrite>${REWRITE}</text-to-rewrite>`)).toBe(REWRITE);
  });

  it('surrounding whitespace', () => {
    expect(cleanModelOutput(`\n\n   ${REWRITE}  \n`)).toBe(REWRITE);
  });

  it('keeps the inner structure of a multi-paragraph answer', () => {
    const answer = 'Hi Sam,\n\nYour workspace is ready.\n\n- Invite your team\n- Connect GitHub\n\n— The Acme team';
    expect(cleanModelOutput(`Here is the rewritten text:\n\n\`\`\`\n${answer}\n\`\`\`\n`)).toBe(answer);
  });
});

describe('cleanModelOutput combines wrappers in order: preamble, fence, tags, quotes', () => {
  it.each([
    ['preamble + quotes', `Here is the rewritten text:\n\n"${REWRITE}"`],
    ['preamble + fence', `Sure! Here's the refined version:\n\`\`\`\n${REWRITE}\n\`\`\``],
    ['preamble + fence + quotes', `Rewritten text:\n\`\`\`text\n“${REWRITE}”\n\`\`\``],
    ['fence + echoed tags', `\`\`\`\n<text-to-rewrite id="abc">\n${REWRITE}\n</text-to-rewrite id="abc">\n\`\`\``],
    ['preamble + echoed tags + quotes', `Here is the rewritten text:\n<text-to-rewrite id="abc">"${REWRITE}"</text-to-rewrite id="abc">`],
  ])('%s', (_name, answer) => {
    expect(cleanModelOutput(answer)).toBe(REWRITE);
  });

  it('removes each wrapper once, leaving quotes that were inside the outer quotes', () => {
    expect(cleanModelOutput(`"'Onward!'"`)).toBe(`'Onward!'`);
  });
});

describe('cleanModelOutput leaves legitimate text alone', () => {
  it.each([
    ['text that starts with a quotation', '"Hi," she said, "welcome to Acme."'],
    ['text that starts with a quote but ends elsewhere', '"Onward!" is our motto, and we mean it.'],
    ['text that ends with a quote', 'The sign on the door said "closed"'],
    ['text that starts and ends with quotes of different kinds', '"Fast" and reliable, as promised: “always”'],
    ['a quoted title followed by more quoted text', '“Getting started” is the first guide; “Billing” is the second”'],
    ['a code block in the middle', 'Run this first:\n\n```bash\nnpm install acme\n```\n\nThen restart the app.'],
    ['two code blocks with text between', '```js\nstart()\n```\nthen, later:\n```js\nstop()\n```'],
    ['a markdown list', '- Invite your team\n- Connect GitHub\n- Say hi'],
    ['a first line that announces steps, not the rewrite', 'Here are the steps:\n1. Open Settings\n2. Click Export'],
    ['a first line that announces a deal', "Here's the deal:\nyour first month is free."],
    ['"Here is" mid-text', 'Thanks for asking!\nHere is the rewritten text:\nnothing else changed.'],
    ['a preamble-like sentence without a line break after it', 'Here is the revised plan: we ship Friday.'],
    ['an inline code span', '`npm install` is all you need.'],
    ['a single apostrophe-led word', "'Tis the season to save 20%."],
  ])('%s', (_name, text) => {
    expect(cleanModelOutput(text)).toBe(text);
  });

  it('returns the trimmed original when removing wrappers would leave nothing', () => {
    expect(cleanModelOutput('  ""  ')).toBe('""');
    expect(cleanModelOutput('```\n\n```')).toBe('```\n\n```');
    expect(cleanModelOutput('<text-to-rewrite id="abc"></text-to-rewrite id="abc">')).toBe(
      '<text-to-rewrite id="abc"></text-to-rewrite id="abc">',
    );
    expect(cleanModelOutput('   \n ')).toBe('');
  });

  it('handles a very long first line without slowing down', () => {
    const line = `Here is ${'a very long sentence '.repeat(5_000)}`;
    expect(cleanModelOutput(`${line}\nmore`)).toBe(`${line}\nmore`);
  });
});
