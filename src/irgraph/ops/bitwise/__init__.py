"""Ops of OpenVINO's 'bitwise' spec category."""
