from execmem.cli.main import app

app(prog_name="execmem")
