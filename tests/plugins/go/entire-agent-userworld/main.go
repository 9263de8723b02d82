// Command entire-agent-userworld is a plugin at home on the user's machine
// (docs/host.md "The user's machine, not a clean room"), written in Go as
// the plugins of the field are:
//
//   - clock: every Event's timestamp is the local time with its offset,
//     time.Now().Format(time.RFC3339): +05:30 in India, -03:30 in
//     Newfoundland;
//   - place: each hook command changes to the repository first, its path
//     quoted for the shell (cd '/Users/Zoë/My projects/app' && entire hooks
//     userworld stop);
//   - size: transcripts are read a line at a time with bufio.Reader, without
//     a limit on a line's length.
//
// Capabilities: hooks (Claude Code's hook names and payload fields),
// transcript_analyzer and token_calculator over Claude Code shaped JSONL;
// positions are line counts, offsets skip lines.
//
// Its twins are this program built with one habit of Go's switched, by
// `-ldflags -X main.variant=<name>`:
//
//   - z0700: the layout 2006-01-02T15:04:05Z0700, +0530 without its colon
//     (not RFC 3339);
//   - unquoted: the repository's path in the hook command as it is;
//   - scanner: lines read with bufio.Scanner at its default 64 KiB limit,
//     its error unchecked (reading stops at the first longer line);
//   - scanner-checked: the same, the scanner's error reported.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"time"

	"goplugins/wild"
)

// variant is the habit switched, set at build time (see the package).
var variant = ""

func main() {
	p := wild.New("userworld", "UserWorld", "UserWorld - fictional agent used where users are")
	p.Capabilities = map[string]bool{"hooks": true, "transcript_analyzer": true, "token_calculator": true}
	p.Hooks = []wild.Hook{
		{Name: "session-start", Key: "SessionStart", Type: wild.SessionStart},
		{Name: "user-prompt-submit", Key: "UserPromptSubmit", Type: wild.TurnStart},
		{Name: "stop", Key: "Stop", Type: wild.TurnEnd},
		{Name: "session-end", Key: "SessionEnd", Type: wild.SessionEnd},
	}
	layout := time.RFC3339
	if variant == "z0700" {
		layout = "2006-01-02T15:04:05Z0700"
	}
	p.Now = func() string { return time.Now().Format(layout) }
	p.Prefix = func() string {
		root := wild.ShellQuote(wild.RepoRoot())
		if variant == "unquoted" {
			root = wild.RepoRoot()
		}
		return "cd " + root + " && entire hooks " + p.Name + " "
	}
	p.Commands["get-transcript-position"] = position
	p.Commands["extract-modified-files"] = modifiedFiles
	p.Commands["extract-prompts"] = prompts
	p.Commands["extract-summary"] = summary
	p.Commands["calculate-tokens"] = tokens
	p.Main()
}

// readLines reads a transcript a line at a time: the host's line count (the
// last line that is not blank) and the JSON objects after the first skip
// lines.
func readLines(r io.Reader, skip int) (int, []wild.Entry, error) {
	count, number := 0, 0
	var entries []wild.Entry
	take := func(line []byte) {
		number++
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		count = number
		if number <= skip {
			return
		}
		if entry, ok := wild.ParseEntry(line); ok {
			entries = append(entries, entry)
		}
	}
	if variant == "scanner" || variant == "scanner-checked" {
		scanner := bufio.NewScanner(r)
		for scanner.Scan() {
			take(scanner.Bytes())
		}
		if variant == "scanner-checked" {
			if err := scanner.Err(); err != nil {
				return 0, nil, err
			}
		}
		return count, entries, nil
	}
	reader := bufio.NewReader(r)
	for {
		line, err := reader.ReadBytes('\n')
		if len(line) > 0 {
			take(line)
		}
		if errors.Is(err, io.EOF) {
			return count, entries, nil
		}
		if err != nil {
			return 0, nil, err
		}
	}
}

func transcript(path string, skip int) (int, []wild.Entry, error) {
	if err := wild.CheckSessionRef(path); err != nil {
		return 0, nil, err
	}
	file, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer file.Close()
	return readLines(file, skip)
}

func offset(flags wild.Flags) (int, error) {
	return wild.Digits(flags.String("offset"), "offset")
}

func position(p *wild.Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"path"}, nil, []string{"path"})
	if err != nil {
		return err
	}
	count, _, err := transcript(flags.String("path"), 0)
	if err != nil {
		return err
	}
	return wild.Emit(map[string]int{"position": count})
}

func modifiedFiles(p *wild.Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"path", "offset"}, nil, []string{"path"})
	if err != nil {
		return err
	}
	skip, err := offset(flags)
	if err != nil {
		return err
	}
	count, entries, err := transcript(flags.String("path"), skip)
	if err != nil {
		return err
	}
	return wild.Emit(struct {
		Files           []string `json:"files"`
		CurrentPosition int      `json:"current_position"`
	}{wild.FilesOf(entries), count})
}

func prompts(p *wild.Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"session-ref", "offset"}, nil, []string{"session-ref"})
	if err != nil {
		return err
	}
	skip, err := offset(flags)
	if err != nil {
		return err
	}
	_, entries, err := transcript(flags.String("session-ref"), skip)
	if err != nil {
		return err
	}
	return wild.Emit(map[string][]string{"prompts": wild.PromptsOf(entries)})
}

func summary(p *wild.Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"session-ref"}, nil, []string{"session-ref"})
	if err != nil {
		return err
	}
	_, entries, err := transcript(flags.String("session-ref"), 0)
	if err != nil {
		return err
	}
	text := wild.SummaryOf(entries)
	return wild.Emit(map[string]any{"summary": text, "has_summary": text != ""})
}

func tokens(p *wild.Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"offset"}, nil, nil)
	if err != nil {
		return err
	}
	skip, err := offset(flags)
	if err != nil {
		return err
	}
	_, entries, err := readLines(os.Stdin, skip)
	if err != nil {
		return err
	}
	return wild.Emit(wild.TokensOf(entries))
}
