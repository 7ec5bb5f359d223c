package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// browser returns a Chrome or Chromium binary: $CHROME, or the first of
// the usual names on PATH.
func browser() (string, bool) {
	if c := os.Getenv("CHROME"); c != "" {
		return c, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// manyFunctionsReport is a report the size of a real module's: 150
// functions with long package and type names, and findings of every kind
// (pure and dependent, ranked by visibility, injected at a call site,
// ended by a return or a panic, long values and errors).
func manyFunctionsReport() *Report {
	const pkg = "github.com/example/a-module-with-a-rather-long-name/internal/configuration"
	r := &Report{Functions: map[string]*Function{}, Types: map[string]*Type{}}
	add := func(name string, line int, verdict string) *Function {
		f := &Function{Name: pkg + "." + name, Pos: fmt.Sprintf("%s/flag.go:%d:6", pkg, line), Verdict: verdict,
			Failures: line % 7, NonAtomic: line % 3, FirstInChain: line % 2, InjectionsInto: line % 5}
		r.Functions[f.Name] = f
		return f
	}
	for i := range 140 {
		verdict := []string{Atomic, Unknown, Atomic, Unknown, Atomic}[i%5]
		add(fmt.Sprintf("(*ConfigurationParserWithLongName%d).ParseTheValueOfTheFlag%d", i%12, i), 20+i*17, verdict)
	}
	evidence := func(i int, failure, callSite string, end int) *Evidence {
		ev := &Evidence{
			Path:    fmt.Sprintf("c.sections[%d].values[\"a-key-with-a-long-name\"].history[3].previousValueOfTheSetting", i),
			Before:  `"` + strings.Repeat("before ", 20) + `"`,
			After:   `"` + strings.Repeat("after ", 20) + `"`,
			Failure: failure, Error: "parse " + strings.Repeat("x", 150) + ": invalid syntax",
			Package: pkg, Test: "TestParseEverythingInTheConfigurationFile", CallSite: callSite, EndLine: end,
			Injection: fmt.Sprintf("error:%d:%s.(*ConfigurationParserWithLongName1).ParseTheValueOfTheFlag1#entry", i+1, pkg),
		}
		ev.Reproduce = reproduce(ev, nil)
		return ev
	}
	// Lines 980 and 1116 of one file: positions sort by line as numbers.
	p := add("(*FlagSet).parseArgs", 980, Pure)
	p.Evidence, p.Visibility = evidence(0, "error", pkg+"/flag.go:985:12", 987), "caller-visible"
	d := add("(*FlagSet).Parse", 1116, Dependent)
	d.Evidence, d.DependsOn = evidence(1, "error", "", 1121), []string{p.Name}
	q := add("(*FlagSet).set", 2001, Pure)
	q.Evidence = evidence(2, "panic", "", 2004)
	for i, vis := range []string{"stream", "scratch", "stream", "caller-visible", "scratch"} {
		f := add(fmt.Sprintf("(*Writer).writeSectionNumber%d", i), 3000+i*40, []string{Pure, Dependent}[i%2])
		f.Evidence, f.Visibility = evidence(3+i, "error", "", 0), vis
	}
	r.Summary = Summary{Packages: 3, Tests: 120, ProfileRuns: 120, Experiments: 900, Fired: 850, ExperimentsMs: 91000}
	r.classifyTypes()
	return r
}

// longSource serves every function as 12 lines, one of them longer than
// any screen.
func longSource(pos string) (string, []string, int, error) {
	_, line, _ := splitPos(pos)
	lines := []string{"func (f *FlagSet) parseArgs(args []string) (err error) {"}
	for i := range 10 {
		lines = append(lines, fmt.Sprintf("\tif err := f.step%d(args, %q); err != nil {", i, strings.Repeat("a long literal ", 12)))
	}
	lines = append(lines, "}")
	return "/home/user/src/configuration/flag.go", lines, line, nil
}

// probeHost shows the page in a frame of the size to test: headless
// Chromium's window is never narrower than 500 px, a frame can be. It
// writes what the probe in the page posts into its own document.
const probeHost = `<!DOCTYPE html>
<html><head><style>body { margin: 0; } iframe { border: 0; display: block; }</style></head>
<body><iframe src="%s" width="%d" height="%d"></iframe>
<script>
window.addEventListener("message", function (e) {
	var out = document.createElement("pre");
	out.id = "probe";
	out.textContent = e.data;
	document.body.appendChild(out);
});
</script></body></html>
`

// probeScript runs in the page before its own script: it records console
// errors and uncaught exceptions, and once the page is loaded measures it,
// uses the sort buttons and the filter, and writes what it saw into the
// page's frame as JSON.
const probeScript = `<script>
var probeErrors = [];
window.addEventListener("error", function (e) { probeErrors.push(String(e.message)); });
var consoleError = console.error;
console.error = function () { probeErrors.push(Array.from(arguments).join(" ")); consoleError.apply(console, arguments); };
window.addEventListener("load", function () {
	var d = document.documentElement, r = {};
	r.width = innerWidth; r.height = innerHeight; r.scrollWidth = d.scrollWidth; r.clientWidth = d.clientWidth;
	var first = document.querySelector("section.fn h3");
	r.firstTop = first ? first.getBoundingClientRect().top : -1;
	r.firstBottom = first ? first.getBoundingClientRect().bottom : -1;
	r.filterShown = !document.getElementById("filter").hidden;
	var th = document.querySelectorAll("#function-table th")[1];
	var button = th.querySelector("button");
	if (button) {
		button.focus();
		r.focused = document.activeElement === button;
		button.click();
		r.ariaSort = th.getAttribute("aria-sort");
		r.positions = Array.from(document.querySelectorAll("#function-table tbody tr")).map(function (tr) { return tr.cells[1].textContent; });
	}
	var box = document.querySelector("#filter input[value=pure]");
	box.click();
	r.pureHidden = Array.from(document.querySelectorAll("[data-verdict=pure]")).every(function (el) { return el.hidden; });
	r.dependentShown = Array.from(document.querySelectorAll("[data-verdict=dependent]")).every(function (el) { return !el.hidden; });
	box.click();
	r.scrollWidthAfter = d.scrollWidth;
	r.errors = probeErrors;
	r.overflowing = Array.from(document.querySelectorAll("body *")).filter(function (el) {
		return el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "visible" && !el.closest("pre, .scroll");
	}).slice(0, 5).map(function (el) { return el.tagName + ": " + el.textContent.slice(0, 60); });
	parent.postMessage(JSON.stringify(r), "*");
});
</script>`

type probeResult struct {
	Width, Height, ScrollWidth, ClientWidth int
	FirstTop, FirstBottom                   float64
	FilterShown, Focused                    bool
	AriaSort                                string
	Positions                               []string
	PureHidden, DependentShown              bool
	ScrollWidthAfter                        int
	Errors                                  []string
	Overflowing                             []string // elements whose content spills out of them
}

var probeOutput = regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`)

// TestHTMLInBrowser loads a large report in headless Chromium at a laptop
// width and a phone width: no console error, no sideways scrolling of the
// page, the first finding on the first screen, sort buttons and the
// verdict filter that work.
func TestHTMLInBrowser(t *testing.T) {
	chrome, ok := browser()
	if !ok {
		const why = "no headless browser: install chromium (Debian: apt-get install chromium) or set CHROME to a Chrome binary"
		if os.Getenv("ATOMICX_REQUIRE_BROWSER") != "" {
			// CI installs one: a skip there would hide a broken page.
			t.Fatal(why)
		}
		t.Skip(why)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, manyFunctionsReport(), longSource); err != nil {
		t.Fatal(err)
	}
	probed := strings.Replace(page.String(), "<head>", "<head>\n"+probeScript, 1)
	dir := t.TempDir()
	for name, text := range map[string]string{"probed.html": probed, "report.html": page.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range []struct{ width, height int }{{1280, 800}, {375, 667}} {
		t.Run(fmt.Sprintf("%dpx", size.width), func(t *testing.T) {
			r := runProbe(t, chrome, dir, size.width, size.height)
			if len(r.Errors) > 0 {
				t.Errorf("console errors: %q", r.Errors)
			}
			if r.Width != size.width {
				t.Errorf("viewport is %d px wide, want %d", r.Width, size.width)
			}
			if r.ScrollWidth > r.ClientWidth || r.ScrollWidthAfter > r.ClientWidth {
				t.Errorf("the page scrolls sideways: scrollWidth %d (%d after sorting and filtering) > clientWidth %d",
					r.ScrollWidth, r.ScrollWidthAfter, r.ClientWidth)
			}
			if size.width >= 1280 && (r.FirstTop < 0 || r.FirstBottom > float64(r.Height)) {
				t.Errorf("first finding's heading at %v–%v px, outside the first %d px", r.FirstTop, r.FirstBottom, r.Height)
			}
			if !r.FilterShown || !r.PureHidden || !r.DependentShown {
				t.Errorf("verdict filter: shown %t, hides pure %t, keeps dependent %t", r.FilterShown, r.PureHidden, r.DependentShown)
			}
			if !r.Focused || r.AriaSort != "ascending" {
				t.Errorf("position header: button focusable %t, aria-sort %q after a click", r.Focused, r.AriaSort)
			}
			checkPositionOrder(t, r.Positions)
		})
	}
}

// headlessFlags starts the browser with no window, a profile of its own
// under dir and none of its background connections, which a machine
// without network access refuses (and logs) by the dozen.
func headlessFlags(dir string, width, height int) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--user-data-dir=" + filepath.Join(dir, fmt.Sprintf("profile-%d", width)),
		fmt.Sprintf("--window-size=%d,%d", width+100, height+100), "--virtual-time-budget=5000"}
}

// runProbe loads file in the browser at the given window size and returns
// what the probe saw. Console messages the browser logs count as errors.
func runProbe(t *testing.T, chrome, dir string, width, height int) probeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	host := filepath.Join(dir, fmt.Sprintf("host-%d.html", width))
	if err := os.WriteFile(host, []byte(fmt.Sprintf(probeHost, "probed.html", width, height)), 0o666); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, chrome, append(headlessFlags(dir, width, height),
		"--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+host)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", chrome, err, stderr.Bytes())
	}
	if shots := os.Getenv("ATOMICX_SCREENSHOTS"); shots != "" {
		// What a reader sees first, for a person to look at.
		png, err := filepath.Abs(filepath.Join(shots, fmt.Sprintf("report-%dpx.png", width)))
		if err != nil {
			t.Fatal(err)
		}
		host := filepath.Join(dir, fmt.Sprintf("shot-%d.html", width))
		if err := os.WriteFile(host, []byte(fmt.Sprintf(probeHost, "report.html", width, height)), 0o666); err != nil {
			t.Fatal(err)
		}
		shot := exec.CommandContext(ctx, chrome, append(headlessFlags(dir, width, height),
			"--screenshot="+png, "file://"+host)...)
		if out, err := shot.CombinedOutput(); err != nil {
			t.Errorf("screenshot: %v\n%s", err, out)
		}
	}
	m := probeOutput.FindSubmatch(stdout.Bytes())
	if m == nil {
		t.Fatalf("the probe wrote nothing; browser's stderr:\n%s", stderr.Bytes())
	}
	var r probeResult
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &r); err != nil {
		t.Fatalf("probe output %q: %v", m[1], err)
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			r.Errors = append(r.Errors, line)
		}
	}
	t.Logf("%dx%d px viewport: scrollWidth %d, clientWidth %d, first finding at %.0f–%.0f px; content spilling out of: %q",
		r.Width, r.Height, r.ScrollWidth, r.ClientWidth, r.FirstTop, r.FirstBottom, r.Overflowing)
	return r
}

// checkPositionOrder checks that positions ("file:line") sorted by the
// page are in order of file, then line as a number.
func checkPositionOrder(t *testing.T, positions []string) {
	t.Helper()
	if len(positions) < 2 {
		t.Fatalf("sorted positions: %q", positions)
	}
	split := func(p string) (string, int) {
		i := strings.LastIndexByte(p, ':')
		n, _ := strconv.Atoi(p[i+1:])
		return p[:i], n
	}
	for i := 1; i < len(positions); i++ {
		fa, la := split(positions[i-1])
		fb, lb := split(positions[i])
		if fa > fb || fa == fb && la > lb {
			t.Fatalf("positions out of order after sorting: %q before %q", positions[i-1], positions[i])
		}
	}
}
