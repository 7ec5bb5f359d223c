// Package campaign is the engine that every question runs on: it builds
// each package's test binary instrumented (or a program workload), runs
// every test once as the profile run to learn which injection points it
// reaches, hands the profile runs to the question it is given (a
// Planner) for the runs to do, runs them with one arming each, and
// journals every finished run. A plan (Plan) carries the runs as data so
// that shards (RunShard) run them anywhere; Merge combines their
// journals.
//
// It knows no question by name: the questions (package question and its
// packages) plan runs and read their records; the engine neither imports
// them nor links the rewriter (package instrument). It knows nothing of
// syntax trees or of the go command's tool runs: it runs the go command
// and the test binaries, and reads the event logs the runtime writes.
// Every finished run is appended to a journal at once, so a killed
// campaign loses nothing it finished and a rerun resumes.
//
// A run's record (Record) carries its arming as the runtime's contract
// has it (arm.Arming), and the question's own data about the run as a
// JSON object that the engine keeps and never reads (Record.QuestionData;
// the question's options likewise, Options.QuestionData). Of the event
// logs the engine reads only the profile runs' reaches (Reaches): each
// question reads the other events with a type of its own.
package campaign
