// A module for the tests of relative package patterns.
module example.com/m // trailing comment

go 1.26
