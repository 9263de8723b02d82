module goplugins

go 1.21
