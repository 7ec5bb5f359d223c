package policy

// TypeCheckFailure says what a build does with a package a rule selects
// when atomicx cannot type-check it although the compiler compiles it:
// export data written by a newer toolchain than atomicx was built with, or
// a construct that atomicx's go/types does not know. The package can then
// only be built as written, without its instrumentation; a release build
// must not lose its masking that way without anyone noticing.
type TypeCheckFailure uint8

const (
	// TypeCheckFailureByMode fails mask rules and warns in detect rules:
	// the setting's default.
	TypeCheckFailureByMode TypeCheckFailure = iota
	// TypeCheckFailureFail stops the build.
	TypeCheckFailureFail
	// TypeCheckFailureWarn builds the package as written, with a warning.
	TypeCheckFailureWarn
)

// typeCheckFailureNames are the values of on_type_check_failure, indexed
// by TypeCheckFailure; the default has no name of its own.
var typeCheckFailureNames = [...]string{TypeCheckFailureFail: "fail", TypeCheckFailureWarn: "warn"}

func (f TypeCheckFailure) String() string {
	if f == TypeCheckFailureByMode {
		return "by mode"
	}
	return typeCheckFailureNames[f]
}

// FailsOnTypeCheckFailure reports whether a package that atomicx cannot
// type-check (but the compiler can) stops the build: the rule's
// on_type_check_failure, or by default whether the package is masked.
func (m Match) FailsOnTypeCheckFailure() bool {
	switch m.Options.OnTypeCheckFailure {
	case TypeCheckFailureFail:
		return true
	case TypeCheckFailureWarn:
		return false
	}
	return m.Mode == Mask
}
