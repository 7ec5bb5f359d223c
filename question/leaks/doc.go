// Package leaks asks whether the tests take the paths on which errleak
// reports a resource left open: it plans, for each finding, the
// experiments that inject the failure opening the path (the question
// atomicx vet -confirm asks), and reads from their runs whether the
// function failed at the reported return with the resource still open.
//
// It plans and reads; the engine (package campaign) builds, runs and
// journals.
package leaks
