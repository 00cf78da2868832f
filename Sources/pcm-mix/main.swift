import PCMMixCLI
